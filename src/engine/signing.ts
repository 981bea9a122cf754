import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import type { SqliteDatabase } from '../events/log/sqlite-database.js';
import { keyIdOf } from '../replay/compliance/signature.js';
import { storeSecret } from './store-secrets.js';

/** The store secret that holds the Ed25519 private key (PKCS#8 DER) signing compliance exports. */
export const signingKeyName = 'export-signing-key';

export interface StoreSigner {
  readonly publicKey: KeyObject;
  readonly keyId: string;
  sign(bytes: Buffer): Buffer;
  /** The public key as PEM (SPKI), what `lmem keys export-public` writes. */
  publicPem(): string;
}

/** The store's signing key, made on first use (ADR 24). */
export function storeSigner(db: SqliteDatabase): StoreSigner {
  const der = storeSecret(db, signingKeyName, () => generateKeyPairSync('ed25519').privateKey.export({ format: 'der', type: 'pkcs8' }));
  const privateKey = createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  const publicKey = createPublicKey(privateKey);
  return {
    publicKey,
    keyId: keyIdOf(publicKey),
    sign: (bytes) => sign(null, bytes, privateKey),
    publicPem: () => publicKey.export({ format: 'pem', type: 'spki' }).toString(),
  };
}
