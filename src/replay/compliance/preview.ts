import type { EventLog } from '../../events/log/event-log.js';
import { recordsOf, recordTypes, type RecordType } from './records.js';
import { createSubjectFilter, type ComplianceSubject } from './subject.js';

export interface ExportPreview {
  readonly subject: ComplianceSubject;
  /** The log was read up to here. */
  readonly position: bigint;
  readonly counts: Readonly<Record<RecordType, number>>;
}

/**
 * What an export of the subject would hold right now, counted by record type, read from the log
 * the way the export reads it; nothing is written.
 */
export async function previewSubjectExport(log: EventLog, subject: ComplianceSubject, pageSize = 1000): Promise<ExportPreview> {
  const to = await log.headPosition();
  const filter = createSubjectFilter(subject);
  const counts = Object.fromEntries(recordTypes.map((t) => [t, 0])) as Record<RecordType, number>;
  for (let from = 1n; from <= to; ) {
    const page = await log.readAll({ from, to, limit: pageSize });
    if (page.length === 0) break;
    for (const e of page) if (filter.admit(e)) for (const r of recordsOf(e, filter)) counts[r.record] += 1;
    from = (page.at(-1)?.globalPosition ?? to) + 1n;
  }
  return { subject, position: to, counts };
}
