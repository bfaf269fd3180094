# cdp-sandbox: the same two commands as the README (npm ci, then npm start), in a container.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY openapi.yaml admin-openapi.yaml ./
COPY scenarios ./scenarios
COPY scripts ./scripts
RUN npm ci && npm pack --pack-destination /tmp && mv /tmp/cdp-sandbox-*.tgz /tmp/cdp-sandbox.tgz

FROM node:24-slim
ENV NODE_ENV=production
WORKDIR /srv
RUN useradd --create-home --uid 10001 sandbox
COPY --from=build /tmp/cdp-sandbox.tgz /tmp/
COPY package-lock.json ./
RUN npm init -y >/dev/null && npm install --omit=dev --ignore-scripts /tmp/cdp-sandbox.tgz && rm /tmp/cdp-sandbox.tgz \
 && chown -R sandbox /srv
USER sandbox
EXPOSE 8080
# Inside a container the sandbox must listen beyond loopback to be reachable; publish the port to localhost only.
CMD ["node", "--max-semi-space-size=2", "node_modules/cdp-sandbox/dist/cli.js", "--host", "0.0.0.0", "--port", "8080"]
# Bound beyond loopback, the admin API takes a token: a 401 still proves the sandbox answers.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s CMD node -e "fetch('http://127.0.0.1:8080/_sandbox/health',{headers:{'x-sandbox-admin-token':process.env.CDP_SANDBOX_ADMIN_TOKEN||''}}).then(r=>process.exit(r.ok||r.status===401?0:1),()=>process.exit(1))"
