/**
 * Human explanations of refactor-plan conflicts. The report term carries the reference's fixed
 * message per code and no location (docs/reference/patch-protocols.md §3.10); people get more: the names, the
 * paths, and the forms that caused the conflict. Presentation only — nothing here decides a plan
 * or a verification, so it shares no code with `plan.ts` or `verify.ts`.
 */
import type { Term } from '../coreform/term.js';
import { topLevelDef } from '../patch/ops/common.js';
import { portablePathProblem } from '../workspace/path.js';
import { ConflictCode, type ConflictCodeValue } from './codes.js';
import { symbolNames } from './plan.js';
import type { RefactorRequest } from './request.js';

/** A conflict explained for people. */
export interface ConflictExplanation {
  code: ConflictCodeValue;
  /** Where, e.g. `money/amount.gc form 3` (the top-level form counted from 1, as an author counts; `[:form i]` patch paths count from 0), or `''`. */
  where: string;
  /** One sentence with the names and paths interpolated. */
  detail: string;
}

interface Site {
  name: string;
  module: number;
  form: number;
  rhs: Term;
}

function definitionSites(request: RefactorRequest): Site[] {
  const sites: Site[] = [];
  request.modules.forEach((m, module) => {
    m.forms.items.forEach((form, index) => {
      const def = topLevelDef(form);
      if (def !== undefined) sites.push({ name: def.name, module, form: index, rhs: def.rhs });
    });
  });
  return sites;
}

/**
 * Explains each conflict of a report for its request.
 * @param request the request the report was planned (and verified) for.
 * @param conflicts the report's conflicts (`code` and, for the order dependency, `modulePath`).
 * @returns one explanation per conflict, in report order.
 */
export function explainConflicts(request: RefactorRequest, conflicts: readonly { code: ConflictCodeValue; modulePath: string }[]): ConflictExplanation[] {
  const sites = definitionSites(request);
  const at = (s: Site): string => `${request.modules[s.module]!.modulePath} form ${s.form + 1}`;
  const { refactorKind: kind, fromSymbol: from, toSymbol: to, targetModulePath: target } = request;
  return conflicts.map(({ code, modulePath }): ConflictExplanation => {
    const say = (detail: string, where = ''): ConflictExplanation => ({ code, where, detail });
    switch (code) {
      case ConflictCode.kindInvalid:
        return say(`refactor kind ${JSON.stringify(kind)} is not rename, move or extract`);
      case ConflictCode.sourceSymbolInvalid:
        return say('the source symbol (--from) is empty');
      case ConflictCode.destinationSymbolInvalid:
        return say('the destination symbol (--to) is empty');
      case ConflictCode.noOp:
        return say(`source and destination are both ${JSON.stringify(from)}`);
      case ConflictCode.sourceSymbolMissing:
        return say(`no module has a top-level (def ${from} ...) definition`);
      case ConflictCode.sourceSymbolAmbiguous: {
        const defs = sites.filter((s) => s.name === from);
        return say(`${from} is defined ${defs.length} times: ${defs.map(at).join(', ')}`, defs[0] === undefined ? '' : at(defs[0]));
      }
      case ConflictCode.destinationSymbolExists: {
        const defs = sites.filter((s) => s.name === to);
        return say(`${to} is already defined (${defs.map(at).join(', ')}); pick another --to`, defs[0] === undefined ? '' : at(defs[0]));
      }
      case ConflictCode.targetModuleRequired:
        return say(`${kind} needs --target, the package-relative path of the new module`);
      case ConflictCode.targetModuleInvalid:
        return say(`target module path ${JSON.stringify(target)} ${portablePathProblem(target) ?? 'is not portable'}`);
      case ConflictCode.targetModuleExists:
        return say(`${target} is already a module of the package; the target must be a new module`, target);
      case ConflictCode.targetOrderDependency: {
        const source = sites.find((s) => s.name === from);
        const used = source === undefined ? new Set<string>() : symbolNames(source.rhs);
        const culprit = source === undefined ? undefined : sites.find((s) => s.module >= source.module && used.has(s.name));
        if (source === undefined || culprit === undefined)
          return say('the moved definition depends on a definition unavailable before the source module', modulePath);
        const sourcePath = request.modules[source.module]!.modulePath;
        if (culprit === source) {
          return say(
            `${from} refers to itself; a definition that names any definition of its own module or a later one (itself included) cannot move before ${sourcePath}`,
            at(culprit),
          );
        }
        return say(
          `${from} uses ${culprit.name}, defined at ${at(culprit)}, which would not be available in ${target}, placed before ${sourcePath}`,
          at(culprit),
        );
      }
      default:
        return say(code);
    }
  });
}
