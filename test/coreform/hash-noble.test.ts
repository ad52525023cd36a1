// Every vector of hash.test.ts again, with BLAKE3 computed by @noble/hashes (the fallback where
// WebAssembly cannot be instantiated) instead of the WebAssembly module: this file's module graph is
// its own, so the backend chosen here holds for all of them.
import { setBlake3Backend } from '../../src/coreform/blake3.js';
import './hash.test.js';

setBlake3Backend('noble');
