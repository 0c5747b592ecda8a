/** A token count in a few characters: 417, 52.3k, 1.2M. */
export function compact(n: number): string {
  if (n < 1000) return String(n);
  if (n < 999_500) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** An estimate in dollars: a cent's detail below a dollar, whole cents above. */
export function usd(n: number): string {
  if (n === 0) return '$0';
  if (n < 0.01) return `<$0.01`;
  return `$${n.toFixed(2)}`;
}

const two = (n: number) => String(n).padStart(2, '0');

/** A moment as the person's clock shows it: 14:05 today, else with its date. */
export function clockTime(at: number, now: number): string {
  const d = new Date(at);
  const hm = `${two(d.getHours())}:${two(d.getMinutes())}`;
  return new Date(now).toDateString() === d.toDateString() ? hm : `${d.getMonth() + 1}/${d.getDate()} ${hm}`;
}

/** How long until a moment, in the largest unit that fits: "in 3 h", "in 12 min", "now". */
export function until(at: number, now: number): string {
  const min = Math.round((at - now) / 60_000);
  if (min <= 0) return 'now';
  if (min < 90) return `in ${min} min`;
  const h = Math.round(min / 60);
  return h < 48 ? `in ${h} h` : `in ${Math.round(h / 24)} d`;
}
