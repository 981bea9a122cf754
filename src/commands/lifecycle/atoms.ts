import { isLegalAtomTransition, type AtomStatus } from '../../events/atom.js';
import type { EventData } from '../../events/catalog.js';
import { DomainError } from '../errors.js';
import type { EventBody } from '../decider.js';
import type { AtomLifecycleSettings } from './settings.js';

const dayMs = 86_400_000;

/** What the lifecycle reads of one atom. */
export interface AtomLifeInput {
  readonly atomId: string;
  readonly status: AtomStatus;
  readonly decayType: EventData<'AtomExtracted'>['decayType'];
  readonly ttlDays: number;
  readonly expiresAt: string | null;
  /** The last extraction, reinforcement or wake. */
  readonly touchedAt: string;
}

export type AtomStateBody = EventBody & { readonly type: 'AtomStateChanged' };
export type AtomReinforcedBody = EventBody & { readonly type: 'AtomReinforced' };

/** One move of the state machine; an illegal one is a DomainError, so no decider can emit it. */
export function transition(atomId: string, from: AtomStatus, to: AtomStatus, reason: string, supersededBy: string | null = null): AtomStateBody {
  if (!isLegalAtomTransition(from, to)) throw new DomainError('illegal_atom_transition', `atom ${atomId} cannot go from ${from} to ${to}`);
  return { type: 'AtomStateChanged', schemaVersion: 1, data: { atomId, from, to, reason, supersededBy } };
}

/**
 * How much of its weight an atom keeps `days` after it was last touched, by decay type (the
 * original's curves): linear to 0 at the TTL, exponential with a half-life of half the TTL,
 * step 1 until the TTL and 0.05 after; `none` keeps everything.
 */
export function decayScore(atom: Pick<AtomLifeInput, 'decayType' | 'ttlDays'>, days: number): number {
  const ttl = Math.max(1, atom.ttlDays);
  const d = Math.max(0, days);
  switch (atom.decayType) {
    case 'linear':
      return Math.max(0, 1 - d / ttl);
    case 'exponential':
      return Math.exp((-Math.LN2 * d) / (ttl / 2));
    case 'step':
      return d <= ttl ? 1 : 0.05;
    case 'none':
      return 1;
  }
}

/**
 * For each decay type, how many TTLs after its last touch an atom can first score below
 * `dormantBelow` (null: never). Only a lower bound for reading candidates; `atomTick` decides.
 */
export function dormantAfterTtls(dormantBelow: number): Record<AtomLifeInput['decayType'], number | null> {
  if (dormantBelow > 1) return { linear: 0, exponential: 0, step: 0, none: 0 };
  const never = dormantBelow <= 0;
  return {
    linear: never ? null : 1 - dormantBelow,
    // -log2(b) rather than log2(1 / b): 1 / b overflows for the tiniest b.
    exponential: never ? null : dormantBelow === 1 ? 0 : -0.5 * Math.log2(dormantBelow),
    step: dormantBelow > 0.05 ? 1 : null,
    none: null,
  };
}

const round2 = (x: number): number => Math.round(x * 100) / 100;

/**
 * What a tick does to one atom as of `asOfMs`: an active or dormant atom past its expiry expires
 * (a soft delete), an active one whose score fell below `dormantBelow` goes dormant, and an
 * expired or superseded atom `forgetAfterDays` past its expiry is forgotten (cleaned up). A long
 * gap can expire and forget in one tick, in that order.
 */
export function atomTick(atom: AtomLifeInput, settings: AtomLifecycleSettings, asOfMs: number): AtomStateBody[] {
  const expires = atom.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(atom.expiresAt);
  const forgetAt = expires + settings.forgetAfterDays * dayMs;
  const out: AtomStateBody[] = [];
  let status = atom.status;
  if ((status === 'active' || status === 'dormant') && expires <= asOfMs) {
    out.push(transition(atom.atomId, status, 'expired', `its time to live ended at ${atom.expiresAt}`));
    status = 'expired';
  }
  if ((status === 'expired' || status === 'superseded') && forgetAt <= asOfMs) {
    out.push(transition(atom.atomId, status, 'forgotten', `${status} and ${settings.forgetAfterDays} days past its expiry`));
    return out;
  }
  if (status === 'active') {
    const score = decayScore(atom, (asOfMs - Date.parse(atom.touchedAt)) / dayMs);
    if (score < settings.dormantBelow) {
      out.push(transition(atom.atomId, 'active', 'dormant', `${atom.decayType} decay score ${round2(score)} below ${settings.dormantBelow}`));
    }
  }
  return out;
}

/** What an access reads of one atom of an accessed memory, with the TTL its next reinforcement would give. */
export interface AccessedAtom extends AtomLifeInput {
  readonly next: { readonly reinforcementCount: number; readonly expiresAt: string };
}

/** The earliest last touch an access at `atMs` can reinforce: one `accessCooldownHours` before it. */
export const cooledBy = (settings: AtomLifecycleSettings, atMs: number): number => atMs - settings.accessCooldownHours * 3_600_000;

/**
 * An access (a recall that returned the atom's memory) reinforces its live atoms, at most once in
 * `accessCooldownHours`, and wakes a dormant one. Expired and later atoms stay as they are.
 */
export function accessReinforcement(atom: AccessedAtom, settings: AtomLifecycleSettings, atMs: number): EventBody[] {
  if (!settings.reinforceOnAccess || (atom.status !== 'active' && atom.status !== 'dormant')) return [];
  if (atom.expiresAt !== null && Date.parse(atom.expiresAt) <= atMs) return [];
  const reason = 'accessed by recall';
  const wake = atom.status === 'dormant' ? [transition(atom.atomId, 'dormant', 'active', reason)] : [];
  const cooled = Date.parse(atom.touchedAt) <= cooledBy(settings, atMs);
  if (wake.length === 0 && !cooled) return [];
  const reinforced: AtomReinforcedBody = {
    type: 'AtomReinforced',
    schemaVersion: 2,
    data: { atomId: atom.atomId, byMemoryId: null, reason, ...atom.next },
  };
  return [...wake, reinforced];
}
