import { ValidationError } from '../../events/errors.js';
import { required, str, type Command, type Handler } from './args.js';
import { opt } from './options.js';

/** `lmem keys export-public [--out FILE [--force]]`: the store's Ed25519 public key as PEM (ADR 24). */
const keys: Handler = async (engine, inv, out) => {
  const action = required(inv, 0, 'action');
  if (action !== 'export-public') throw new ValidationError('action', `must be export-public, got "${action}"`);
  const { keyId, pem } = engine.publicKey();
  const target = str(inv, 'out');
  if (target === undefined) {
    out.print({ keyId, publicKey: pem }, () => pem.trimEnd());
    return;
  }
  const path = await engine.outputs.writeFile(target, pem, { flag: 'out', force: inv.flags.force === true });
  out.print({ keyId, publicKey: pem, file: path }, () => `public key ${keyId} written to ${path} (PEM)`);
};

export const keysCommands: Readonly<Record<string, Command>> = {
  keys: {
    run: keys,
    summary: "export-public: the public key that checks this store's signed exports (PEM; ADR 24)",
    args: ['<action>'],
    options: [opt.out, opt.force],
  },
};
