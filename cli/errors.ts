// The plugin's errors: each ends the run with its message (exit 1).

/** An answer of the API server other than 2xx, with its Status message when it gave one. */
export class ApiError extends Error {
  /**
   * `message`: for the terminal, the code in words before the server's; `serverMessage`: the API
   * server's own words, for a page that shows the code and reason beside them.
   */
  constructor(readonly code: number, message: string, readonly reason?: string, readonly serverMessage?: string) {
    super(message);
  }
}

/** A refusal no retry mends: the user is not allowed to read or watch what is asked for (401, 403). */
export const isRefusal = (err: Error) => err instanceof ApiError && (err.code === 401 || err.code === 403);

/** A failure explained in words for the user. */
export class CliError extends Error {}

/** The API server could not be reached (refused, timed out, a certificate it did not trust). */
export class UnreachableError extends CliError {}

/** What the command acts on does not exist (the App, or the App API itself): the API server's 404. */
export class NotFoundError extends CliError {}

/**
 * An App that does not exist: the API server's 404 NotFound for it. `message` names the namespace
 * (the dashboard answers with it); on the terminal the plugin prints `kubectlText`, the line
 * kubectl prints for the same answer (`Error from server (NotFound): apps.skiff.dev "web" not
 * found`), which people and scripts know from `kubectl get app`.
 */
export class AppNotFoundError extends NotFoundError {
  readonly kubectlText: string;
  constructor(ns: string, name: string, server: ApiError) {
    super(`app "${name}" not found in namespace "${ns}"`);
    this.kubectlText = `Error from server (${server.reason ?? 'NotFound'}): ${server.message}`;
  }
}
