// Small helpers for tests against the real control plane.
import { execFile } from 'node:child_process';

/** Runs kubectl against a kubeconfig; resolves with its output, rejects with stderr in the message. */
export function kubectlOutput(kubeconfigPath: string, args: string[], stdin?: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = execFile('kubectl', ['--kubeconfig', kubeconfigPath, ...args], { maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      if (err) {
        const failure = new Error(`kubectl ${args.join(' ')}: ${stderr.trim() || err.message}`) as Error & { stderr: string; stdout: string };
        failure.stderr = stderr;
        failure.stdout = stdout;
        fail(failure);
      } else done({ stdout, stderr });
    });
    // kubectl may exit before it reads its input (EPIPE on the write): its own exit status and
    // stderr, through the callback above, say what happened; the pipe's error says nothing more.
    child.stdin!.on('error', () => {});
    child.stdin!.end(stdin ?? '');
  });
}

/** Runs kubectl against a kubeconfig; resolves with stdout. */
export const kubectl = async (kubeconfigPath: string, args: string[], stdin?: string): Promise<string> =>
  (await kubectlOutput(kubeconfigPath, args, stdin)).stdout;
