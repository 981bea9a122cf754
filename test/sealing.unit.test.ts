import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SealIntegrityError, deriveDataKey, openBytes, sealBytes } from '../src/events/log/sealing/cipher.js';
import { validateNewEvent } from '../src/events/log/validate.js';
import { memoryWrittenEvent } from './support/events.js';

describe('sealing primitives (AES-256-GCM under an HKDF of the subject keys)', () => {
  const keys = [randomBytes(32), randomBytes(32), randomBytes(32)];

  it('opens what it sealed, with the same key and associated data', () => {
    const key = deriveDataKey(keys, [1, 2, 3]);
    const box = sealBytes(key, '["Alice likes green tea"]', 'MemoryWritten\ne1');
    expect(Buffer.from(box.ct, 'base64').toString('utf8')).not.toContain('green tea');
    expect(openBytes(key, box, 'MemoryWritten\ne1')).toBe('["Alice likes green tea"]');
  });

  it('rejects a flipped ciphertext byte, a changed tag and other associated data', () => {
    const key = deriveDataKey(keys, [1, 2, 3]);
    const box = sealBytes(key, 'secret text', 'aad');
    const ct = Buffer.from(box.ct, 'base64');
    ct[0] = (ct[0] ?? 0) ^ 1;
    expect(() => openBytes(key, { ...box, ct: ct.toString('base64') }, 'aad')).toThrow(SealIntegrityError);
    expect(() => openBytes(key, { ...box, tag: Buffer.alloc(16).toString('base64') }, 'aad')).toThrow(SealIntegrityError);
    expect(() => openBytes(key, box, 'other')).toThrow(SealIntegrityError);
  });

  it('derives a different data key when any one subject key differs or the key ids differ', () => {
    const base = deriveDataKey(keys, [1, 2, 3]).export();
    for (let i = 0; i < keys.length; i += 1) {
      const changed = keys.map((k, j) => (j === i ? randomBytes(32) : k));
      expect(deriveDataKey(changed, [1, 2, 3]).export().equals(base)).toBe(false);
    }
    expect(deriveDataKey(keys, [1, 2, 4]).export().equals(base)).toBe(false);
    expect(deriveDataKey(keys, [1, 2, 3]).export().equals(base)).toBe(true);
  });

  it('a failed open names no key material (hex or base64)', () => {
    const key = deriveDataKey(keys, [7]);
    const box = sealBytes(key, 'x', 'aad');
    const error = (() => {
      try {
        openBytes(key, box, 'tampered');
      } catch (e) {
        return e as Error;
      }
      throw new Error('open did not fail');
    })();
    const text = `${error.message}\n${error.stack ?? ''}`;
    for (const secret of [key.export(), ...keys]) {
      expect(text).not.toContain(secret.toString('hex'));
      expect(text).not.toContain(secret.toString('base64'));
    }
  });

  it('refuses an event that claims to be erased: only the log sets that flag, on read', () => {
    const event = memoryWrittenEvent('m1', 'text', { metadata: { erased: true } });
    expect(() => validateNewEvent(event, 0)).toThrow(/events\.0\.metadata\.erased/);
  });
});
