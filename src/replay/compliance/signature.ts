import { createHash, createPublicKey, verify, type KeyObject } from 'node:crypto';
import { ValidationError } from '../../events/errors.js';

/** The signature file beside `manifest.json`: base64 of the Ed25519 signature of manifest.json's exact bytes, one line. */
export const signatureName = 'manifest.sig';

/** What the manifest says of the key that signed it. */
export interface ManifestSigning {
  readonly algorithm: 'Ed25519';
  /** base64 of the public key's SPKI DER bytes. */
  readonly publicKey: string;
  /** sha256 (hex) of those bytes: the key's id, as `lmem keys export-public` prints it. */
  readonly keyId: string;
}

const spkiOf = (key: KeyObject): Buffer => key.export({ format: 'der', type: 'spki' });

/** The key id: sha256 of the SPKI DER bytes, hex. */
export const keyIdOf = (key: KeyObject): string => createHash('sha256').update(spkiOf(key)).digest('hex');

export const signingOf = (key: KeyObject): ManifestSigning => ({ algorithm: 'Ed25519', publicKey: spkiOf(key).toString('base64'), keyId: keyIdOf(key) });

/** The SPKI prefix of an Ed25519 key: with it, 32 raw key bytes become a DER public key. */
const ed25519Prefix = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * A public key as `keys export-public` writes it (PEM), or one line of base64: the SPKI DER
 * bytes, or the 32 raw Ed25519 key bytes. Anything else is refused, naming `field`.
 */
export function parsePublicKey(text: string, field: string): KeyObject {
  const trimmed = text.trim();
  let key: KeyObject;
  try {
    if (trimmed.startsWith('-----BEGIN PUBLIC KEY-----')) key = createPublicKey({ key: trimmed, format: 'pem' });
    else {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(trimmed)) throw new Error('not PEM and not base64');
      const bytes = Buffer.from(trimmed, 'base64');
      key = createPublicKey({ key: bytes.length === 32 ? Buffer.concat([ed25519Prefix, bytes]) : bytes, format: 'der', type: 'spki' });
    }
  } catch (error) {
    throw new ValidationError(field, `is not an Ed25519 public key (PEM, or base64 of SPKI DER or of the 32 raw bytes): ${(error as Error).message}`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new ValidationError(field, `is a ${key.asymmetricKeyType ?? 'unknown'} key, not Ed25519`);
  return key;
}

/** The signature file's exact text for a signature. */
export const signatureText = (signature: Buffer): string => `${signature.toString('base64')}\n`;

/**
 * The signature in a signature file, or null when the file is not exactly what `signatureText`
 * writes: base64 decoding is lenient (stray characters, padding bits), so the text is encoded
 * back and compared, and one changed byte can never decode to the same signature.
 */
export function parseSignature(text: string): Buffer | null {
  const body = text.endsWith('\n') ? text.slice(0, -1) : null;
  if (body === null || !/^[A-Za-z0-9+/]{86}==$/.test(body)) return null;
  const signature = Buffer.from(body, 'base64');
  return signature.length === 64 && signatureText(signature) === text ? signature : null;
}

/** The embedded key of a manifest, or null when its `signing` block is missing or malformed. */
export function embeddedKey(signing: unknown): KeyObject | null {
  const s = signing as Partial<ManifestSigning> | undefined;
  if (s?.algorithm !== 'Ed25519' || typeof s.publicKey !== 'string' || typeof s.keyId !== 'string') return null;
  try {
    const key = parsePublicKey(s.publicKey, 'manifest.signing.publicKey');
    return keyIdOf(key) === s.keyId ? key : null;
  } catch {
    return null;
  }
}

export const verifiesWith = (key: KeyObject, bytes: Buffer, signature: Buffer): boolean => verify(null, bytes, key, signature);
