import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KeyObject } from 'node:crypto';
import { embeddedKey, keyIdOf, parseSignature, signatureName, verifiesWith } from './signature.js';

/**
 * Whose key the signature was checked against. `embedded-key-only`: the key written in the
 * manifest itself, which proves the files are what that key's holder signed, and nothing about
 * who that is: a forger signs with a key of their own (ADR 24).
 */
export type SignatureTrust = 'store' | 'public-key' | 'embedded-key-only';

/** A key the verifier trusts: the store's own, or a file given with `--public-key`. */
export interface TrustedKey {
  readonly source: 'store' | 'public-key';
  readonly key: KeyObject;
}

export interface SignatureCheck {
  readonly valid: boolean;
  readonly checkedAgainst: SignatureTrust;
  /** The id of the key the manifest names (null when it names none). */
  readonly keyId: string | null;
  /** One plain sentence: what the check proves. */
  readonly meaning: string;
}

const meanings: Record<SignatureTrust, string> = {
  store: "signed by this store's key: the export was made by this store and not changed since",
  'public-key': 'signed by the key in the given public key file: whoever holds its private key made this export, unchanged since',
  'embedded-key-only':
    'checked against the key embedded in the manifest only: the files are as that key signed them, which proves nothing against a forger (anyone can sign with a new key); give --public-key FILE or --data-dir D to check who signed it',
};

/** The manifest's signature over its exact bytes, against every trusted key (or the embedded one when none is given). */
export function checkSignature(dir: string, manifestBytes: Buffer, signing: unknown, trusted: readonly TrustedKey[], problems: string[]): SignatureCheck {
  const checkedAgainst: SignatureTrust = trusted.some((t) => t.source === 'store') ? 'store' : trusted.length > 0 ? 'public-key' : 'embedded-key-only';
  const embedded = embeddedKey(signing);
  const result = (valid: boolean): SignatureCheck => ({ valid, checkedAgainst, keyId: embedded && keyIdOf(embedded), meaning: valid ? meanings[checkedAgainst] : 'the signature does not verify' });
  if (!embedded) {
    problems.push('manifest.json: no valid signing key (an unsigned export, or its signing block was changed)');
    return result(false);
  }
  const path = join(dir, signatureName);
  const signature = existsSync(path) ? parseSignature(readFileSync(path, 'latin1')) : null;
  if (!signature) {
    problems.push(existsSync(path) ? `${signatureName}: not a signature file (one line of base64, 64 bytes)` : `${signatureName}: missing`);
    return result(false);
  }
  let valid = true;
  for (const { source, key } of trusted) {
    if (keyIdOf(key) !== keyIdOf(embedded)) {
      problems.push(`manifest.json: signed by key ${keyIdOf(embedded)}, not by the ${source === 'store' ? "store's key" : 'given public key'} ${keyIdOf(key)}`);
      valid = false;
    }
  }
  if (!verifiesWith(trusted[0]?.key ?? embedded, manifestBytes, signature)) {
    problems.push(`${signatureName}: the signature of manifest.json does not verify: the manifest or the signature was changed`);
    valid = false;
  }
  return result(valid);
}
