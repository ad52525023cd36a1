// The stable error codes of blame, why and log (docs/audit.md "Exit codes").

/** Error codes of `src/blame/`. */
export const BlameCode = {
  /** The path is not a module of the package at the head (exit 10). */
  unknownModule: 'blame/unknown-module',
  /** No module of the package defines the symbol at the head (exit 10). */
  unknownSymbol: 'blame/unknown-symbol',
  /** The package cannot be read at the head (exit 10). */
  unreadableHead: 'blame/unreadable-head',
} as const;
