// The oldest Node.js the plugin runs on (package.json's engines). On an older one it failed deep
// inside a dependency (undici 8, loaded for exec credential plugins, needs Node 22's zlib) with a
// TypeError that named neither Node nor its version.
export const MIN_NODE = [22, 19] as const;

/** Why Node `version` (process.versions.node) cannot run the plugin, or undefined when it can. */
export function nodeVersionProblem(version: string, execPath: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return undefined;
  return `kubectl skiff needs Node.js ${MIN_NODE.join('.')} or newer, and ${execPath} is ${version}: put a newer node first on PATH, or run npm ci in the project (it brings its own)`;
}
