import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from '../api';

/** A failed call, said plainly; the field the server named is shown with it. */
export function ErrorNote({ error }: { error: Error | undefined }) {
  if (!error) return null;
  const field = error instanceof ApiError && error.field ? ` (field: ${error.field})` : '';
  return <p class="error" role="alert">{error.message}{field}</p>;
}

export function Loading({ when }: { when: boolean }) {
  return when ? <p class="muted" aria-live="polite">Loading…</p> : null;
}

type InputProps = Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'value' | 'class'> & { label: string; value: string; onValue: (v: string) => void; class?: string };

export function Field({ label, value, onValue, class: extra, ...rest }: InputProps) {
  return (
    <label class={extra ? `field ${extra}` : 'field'}>
      <span>{label}</span>
      <input {...rest} value={value} onInput={(e) => onValue((e.target as HTMLInputElement).value)} />
    </label>
  );
}

export function Select({ label, value, onValue, options }: { label: string; value: string; onValue: (v: string) => void; options: readonly (readonly [string, string])[] }) {
  return (
    <label class="field">
      <span>{label}</span>
      <select value={value} onChange={(e) => onValue((e.target as HTMLSelectElement).value)}>
        {options.map(([v, text]) => <option value={v} key={v}>{text}</option>)}
      </select>
    </label>
  );
}

export function Status({ value }: { value: string }) {
  return <span class={`badge badge-${value}`}>{value}</span>;
}

export const when = (iso: string | null | undefined): string => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, ' UTC') : '—');

export function Json({ value, label }: { value: unknown; label?: string }) {
  return <pre class="json" aria-label={label} tabIndex={0}>{JSON.stringify(value, null, 2)}</pre>;
}

/** A modal dialog on the native <dialog>: focus moves into it, Escape closes it. */
export function Dialog({ open, title, onClose, children }: { open: boolean; title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-label={title} onClose={onClose} onCancel={onClose}>
      <h2>{title}</h2>
      {open ? children : null}
    </dialog>
  );
}

export function Section({ title, children }: { title: string; children: ComponentChildren }) {
  const id = `h-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section class="panel" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
