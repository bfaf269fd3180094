/// <reference lib="dom" />
/** Projects (create, switch: the header's list), snapshots of the project shown (save, restore) and a reset. */
import { api, currentProject } from "../api.js";
import { field, fill, h, pre, table, time } from "../dom.js";
import type { Shell, View } from "../view.js";

export function stateView(shell: Shell): View {
  const projects = h("div", { class: "results" });
  const snapshots = h("div", { class: "results" });
  const created = h("div", {});
  const name = h("input", { type: "text", placeholder: "my-project", required: true });

  async function act(run: () => Promise<unknown>, done: string): Promise<void> {
    try {
      await run();
      shell.say(done);
      await load();
      await shell.poke();
    } catch (error) {
      shell.say((error as Error).message, "error");
    }
  }

  async function create(e: Event): Promise<void> {
    e.preventDefault();
    try {
      const project = await api<"createSandboxProject">("POST", "/projects", { body: { name: name.value.trim() }, global: true });
      fill(created, h("p", {}, "New project. Its credentials (shown once here; the project stays in the list):"), pre(project));
      await shell.projectsChanged(project.projectId);
      shell.say(`Project ${project.projectId} created and shown.`);
      await load();
    } catch (error) {
      shell.say((error as Error).message, "error");
    }
  }

  async function load(): Promise<void> {
    const [p, s] = await Promise.all([api<"listSandboxProjects">("GET", "/projects", { global: true }), api<"listSandboxSnapshots">("GET", "/snapshots")]);
    fill(
      projects,
      table(
        "Projects",
        [
          ["Project", (x) => h("span", { class: "mono" }, x.projectId)],
          ["Name", (x) => `${x.name ?? ""}${x.isDefault ? " (default)" : ""}${x.projectId === currentProject() ? " · shown" : ""}`],
          ["Created", (x) => (x.createdAt ? time(x.createdAt) : "")],
          [
            "",
            (x) =>
              x.projectId === currentProject()
                ? ""
                : h(
                    "button",
                    {
                      type: "button",
                      onclick: () => void shell.projectsChanged(x.projectId).then(load),
                      "aria-label": `Show project ${x.name ?? x.projectId}`,
                    },
                    "Show",
                  ),
          ],
        ],
        p.projects,
      ),
    );
    fill(
      snapshots,
      table(
        "Snapshots",
        [
          ["Snapshot", (x) => h("span", { class: "mono" }, x.snapshotId)],
          ["Taken at (sandbox time)", (x) => time(x.takenAt)],
          [
            "",
            (x) =>
              h(
                "button",
                {
                  type: "button",
                  onclick: () =>
                    void act(() => api<"restoreSandboxSnapshot">("POST", `/snapshots/${x.snapshotId}/restore`), `Snapshot ${x.snapshotId} restored.`),
                  "aria-label": `Restore ${x.snapshotId}`,
                },
                "Restore",
              ),
          ],
        ],
        s.snapshots,
        "No snapshot of this project yet.",
      ),
    );
  }

  return {
    async mount(root) {
      fill(
        root,
        h("h2", {}, "Projects"),
        projects,
        h(
          "form",
          { class: "toolbar", onsubmit: (e: Event) => void create(e), "aria-label": "Create a project" },
          field("New project name", name),
          h("button", { type: "submit" }, "Create project"),
        ),
        created,
        h("h2", {}, "Snapshots of the project shown"),
        h(
          "p",
          {},
          h("button", { type: "button", onclick: () => void act(() => api<"takeSandboxSnapshot">("POST", "/snapshots"), "Snapshot saved.") }, "Save snapshot"),
          " ",
          h(
            "button",
            {
              type: "button",
              class: "danger",
              onclick: () => {
                if (confirm("Forget every record of this project (its credentials stay)?"))
                  void act(() => api<"resetSandbox">("POST", "/reset"), "Project reset.");
              },
            },
            "Reset project",
          ),
        ),
        snapshots,
      );
      await load();
    },
    refresh: load,
  };
}
