/// <reference lib="dom" />
/** What every view of the dashboard is: mounted once into the main area, refreshed when the sandbox changed. */
import type { Answer } from "./api.js";

export type Overview = Answer<"getSandboxOverview">;

export interface View {
  /** Builds the view's controls and shows its data; `route` is what follows the view's name in the URL hash. */
  mount(root: HTMLElement, route: string[]): Promise<void>;
  /** Reads the data again (the controls stay, so focus and typed text are kept). */
  refresh(overview: Overview): Promise<void>;
}

export interface Shell {
  /** Tells the user something, politely (a live region). */
  say(message: string, kind?: "ok" | "error"): void;
  /** Reads the overview now and refreshes the header and the view. */
  poke(): Promise<void>;
  /** Reads the projects again, and shows `select` when given. */
  projectsChanged(select?: string): Promise<void>;
}
