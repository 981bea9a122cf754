import { config } from 'zod';

// Evaluated before any schema of the bundled CLI is built (bundle-entry.ts imports it first): zod
// compiles a parser per object schema on its first parse, which a short command never pays back
// (ADR 26; decoding 30k events took as long either way).
config({ jitless: true });
