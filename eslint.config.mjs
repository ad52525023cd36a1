// Lint configuration (ESLint flat config), after actions/typescript-action's: ESLint's and
// typescript-eslint's recommended rules for the TypeScript of src/, driver/, action/, bench/ and
// scripts/; for the tests, the vitest plugin's recommended rules with `expect-expect` (a test must
// assert) and `no-conditional-expect` (no assertion that a branch can skip). Formatting is
// prettier's (.prettierrc), so eslint-config-prettier switches off the rules it owns.
import js from '@eslint/js';
import vitest from '@vitest/eslint-plugin';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/', 'dist/', 'driver/dist/', 'action/dist/', 'coverage/', 'fixtures/', '**/*.d.ts'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: { ...globals.node } },
    rules: {
      // `_name` marks a binding kept on purpose (a destructured field left out, a callback's position).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    plugins: { vitest },
    rules: {
      ...vitest.configs.recommended.rules,
      // A test asserts through `expect` or through a helper of its file that does (`fails`, `rejected`, `unchanged`, `rolledBack`, `outdated`, `agree`).
      'vitest/expect-expect': [
        'error',
        { assertFunctionNames: ['expect', 'expect*', 'assert*', 'fc.assert', 'fails', 'rejected', 'unchanged', 'rolledBack', 'outdated', 'agree'] },
      ],
      // Data-driven tests name each case from its data: `it(name, …)` with a variable (a bare identifier, not `c.name`).
      'vitest/valid-title': ['error', { allowArguments: true }],
      'vitest/no-conditional-expect': 'error',
      // vitest's `expect(value, message)` takes the failure message as a second argument.
      'vitest/valid-expect': ['error', { maxArgs: 2 }],
    },
  },
  prettier,
);
