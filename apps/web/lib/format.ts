/** Number and time formatting shared by server and client components. Deterministic: no locale surprises. */

export function usd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (value === 0) return '$0';
  const abs = Math.abs(value);
  // below a cent, three significant digits (the comment once said two; the arithmetic has always given three): model calls cost fractions of a cent
  const digits = abs >= 0.01 ? 4 : Math.min(10, Math.max(4, 1 - Math.floor(Math.log10(abs)) + 1));
  return `$${value
    .toFixed(digits)
    .replace(/(\.\d*?[1-9])0+$/, '$1')
    .replace(/\.0+$/, '')}`;
}

export function score(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(value >= 100 ? 0 : 2);
}

export function percent(value: number | null | undefined, digits = 1): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${(value * 100).toFixed(digits)}%`;
}

export function ms(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return value < 10 ? `${value.toFixed(1)} ms` : value < 10_000 ? `${Math.round(value)} ms` : `${(value / 1000).toFixed(1)} s`;
}

export function tokens(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return String(Math.round(value));
}

/** UTC, to the second: an incident timeline is read in UTC. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '—';
  if (/^\d{4}-\d{2}-\d{2}$/.test(iso)) return iso; // a date alone has no time to show
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A short run id for tables; the full id stays in the title and the link. */
export function shortId(id: string): string {
  return id.length > 12 ? id.slice(0, 8) : id;
}
