/**
 * The warning the commands that write evidence (`apply`, `accept`, `pack`, `refactor apply`) print
 * when git ignores where they wrote it: `git add .` would leave the evidence out of the commit and
 * the pull request's check would find the change unexplained (docs/init.md).
 */
import { dirname, relative, resolve } from 'node:path';
import { evidenceProbePaths, ignoredPaths } from '../git/ignored.js';
import { runGit } from '../git/exec.js';
import type { CliContext } from './context.js';

/**
 * Prints one `warning:` line on standard error when the work tree's ignore rules ignore the
 * evidence of the package whose `package.toml` is `manifestFile`; nothing outside a git work tree
 * or when git cannot answer. Never changes the exit code.
 */
export function warnIfEvidenceIgnored(ctx: CliContext, manifestFile: string): void {
  const dir = resolve(dirname(manifestFile));
  const top = runGit(['rev-parse', '--show-toplevel'], { cwd: dir });
  if (top.status !== 0) return;
  const rel = relative(top.stdout.trim(), dir).split('\\').join('/');
  const rule = ignoredPaths(top.stdout.trim(), evidenceProbePaths(rel))[0];
  if (rule === undefined) return;
  const where = rel === '' ? '.genesis' : `${rel}/.genesis`;
  ctx.stderr(
    `warning: git ignores ${where}/ (${rule.source}:${rule.line}: ${rule.pattern}): the evidence just written will not reach a commit with \`git add .\`, ` +
      `and the pull request check will find the change unexplained; run \`gcpatch init\` (it adds the .gitignore exceptions), then \`git add ${where}\`\n`,
  );
}
