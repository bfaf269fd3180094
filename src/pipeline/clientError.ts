/**
 * Requests Node's HTTP parser refuses before any handler sees them: a request
 * head over 16 KB (a huge header, a 10,000-character path) or bytes that are
 * not HTTP. Node's default answer is a bare status line with no body; clients
 * of the platform read `errorType` from every error, so this writes the
 * platform's error body instead and closes the connection.
 */
import type { Duplex } from "node:stream";
import { apiError } from "../errors/catalogue.js";

/**
 * The `clientError` listener for the sandbox's server; `correlationId` makes each answer's id, `answered` hears of
 * each answer written (for the journal: the request never parsed, so it is the caller's violation of HTTP itself).
 */
export function answerClientError(correlationId: () => string, answered?: (answer: { correlationId: string; status: number; message: string }) => void) {
  return (error: Error & { code?: string }, socket: Duplex): void => {
    // A connection the client already dropped, or one that has half an answer written, can only be closed.
    if (error.code === "ECONNRESET" || !socket.writable || (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
      socket.destroy();
      return;
    }
    const headTooLarge = error.code === "HPE_HEADER_OVERFLOW";
    const status = headTooLarge ? 431 : 400;
    const message = headTooLarge
      ? "The request line and headers together exceed 16 KB; send less in the URL and headers."
      : `The request is not valid HTTP (${error.code ?? "parse error"}).`;
    const id = correlationId();
    const body = JSON.stringify(apiError("invalid_request", message).body(id));
    const reason = headTooLarge ? "Request Header Fields Too Large" : "Bad Request";
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    answered?.({ correlationId: id, status, message });
  };
}
