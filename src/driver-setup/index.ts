/** Driver set-up, the library side of `gcpatch driver install | uninstall | doctor | repin`: every module of the folder. */
export * from './attributes.js';
export * from './doctor.js';
export * from './exit-status.js';
export * from './git-version.js';
export * from './hooks.js';
export * from './install.js';
export * from './line.js';
export * from './options.js';
export * from './repin.js';
export * from './run-line.js';
export * from './uninstall.js';
