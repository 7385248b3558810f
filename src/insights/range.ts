// Insights' days (extensions.md § 10): UTC dates on the wire, day numbers (days since 1970-01-01) in D1.
import { INSIGHTS } from "../config";
import { ApiError } from "../platform/errors/errors";
import { dayOf } from "../serving/view-counter-days";

export { dayOf };
export const DAY_MS = 86_400_000;

export const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);
const dayOfDate = (date: string) => dayOf(Date.parse(`${date}T00:00:00Z`));

export type DayRange = { from: number; to: number; today: number };

/** `from`/`to` (inclusive, YYYY-MM-DD) within the kept days; by default the last INSIGHTS.defaultDays, today included. */
export function dayRange(q: { from?: string; to?: string }, now: number): DayRange {
  const today = dayOf(now);
  const to = q.to ? dayOfDate(q.to) : today;
  const from = q.from ? dayOfDate(q.from) : to - INSIGHTS.defaultDays + 1;
  const oldest = today - INSIGHTS.keepDays + 1;
  const bad = (path: string, message: string) => new ApiError("validation_error", message, { fields: [{ path, message }] });
  if (from > to) throw bad("from", "from is after to");
  if (from < oldest) throw bad("from", `Only the last ${INSIGHTS.keepDays} days are kept (from ${dateOf(oldest)})`);
  if (to > today) throw bad("to", "to is after today");
  return { from, to, today };
}

/** One entry per day of the range, oldest first, zeros where `rows` has none. */
export function everyDay<R extends { day: number }, T>(range: DayRange, rows: R[], entry: (date: string, row: R | undefined, day: number) => T): T[] {
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const out: T[] = [];
  for (let d = range.from; d <= range.to; d++) out.push(entry(dateOf(d), byDay.get(d), d));
  return out;
}
