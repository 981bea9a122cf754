import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** A sealed value as stored: base64 of the 12-byte IV, the ciphertext and the 16-byte GCM tag. */
export interface SealedBox {
  readonly iv: string;
  readonly ct: string;
  readonly tag: string;
}

/** The content could not be authenticated: tampered bytes or the wrong key. Never carries key material. */
export class SealIntegrityError extends Error {
  override readonly name = 'SealIntegrityError';
}

const info = Buffer.from('livingmemory/seal/v1');

/**
 * The data key of an event: HKDF-SHA256 over the concatenation of every subject key it is sealed
 * under (in the envelope's order), so losing any one of them loses the data key.
 */
export function deriveDataKey(subjectKeys: readonly Buffer[], keyIds: readonly number[]): Buffer {
  const salt = Buffer.from(keyIds.join(','));
  return Buffer.from(hkdfSync('sha256', Buffer.concat(subjectKeys), salt, info, 32));
}

/** AES-256-GCM with a random 96-bit IV; `aad` binds the box to its event (type, field list, key ids). */
export function sealBytes(dataKey: Buffer, plaintext: string, aad: string): SealedBox {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey, iv);
  cipher.setAAD(Buffer.from(aad));
  const ct = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv: iv.toString('base64'), ct: ct.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
}

/** Opens a box or throws SealIntegrityError; the node:crypto error (which could echo inputs) is not passed on. */
export function openBytes(dataKey: Buffer, box: SealedBox, aad: string): string {
  try {
    const decipher = createDecipheriv('aes-256-gcm', dataKey, Buffer.from(box.iv, 'base64'));
    decipher.setAAD(Buffer.from(aad));
    decipher.setAuthTag(Buffer.from(box.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(box.ct, 'base64')), decipher.final()]).toString('utf8');
  } catch {
    throw new SealIntegrityError('sealed content failed authentication (tampered, or sealed under another key)');
  }
}
