// Charts drawn on the server as SVG (no script, no inline style: the pages' CSP), coloured by site.css's classes
// so light and dark follow the page. Each has a title, and "Show data" (<details>, keyboard-reachable without
// script) opens a table of the same numbers.
import type { Child } from "hono/jsx";

export type Point = { date: string; value: number };

const W = 320;
const H = 120;
const PAD = { left: 4, right: 4, top: 16, bottom: 18 };

/** "2026-11-30" -> "Nov 30", the same in every locale the server runs in. */
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
export const shortDate = (date: string) => `${MONTHS[Number(date.slice(5, 7)) - 1]} ${Number(date.slice(8, 10))}`;

/** A daily series as bars (counts), or as a line over an area (levels such as storage). */
export function Chart(props: { id: string; title: string; points: Point[]; kind?: "bars" | "line"; format?: (n: number) => string; unit: string }) {
  const { id, title, points, kind = "bars", format = (n: number) => n.toLocaleString("en-US"), unit } = props;
  const max = Math.max(1, ...points.map((p) => p.value));
  const total = points.reduce((s, p) => s + p.value, 0);
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const step = innerW / Math.max(1, points.length);
  const y = (v: number) => PAD.top + innerH - (v / max) * innerH;
  const x = (i: number) => PAD.left + i * step + step / 2;
  const summary =
    kind === "bars"
      ? `${format(total)} ${unit} from ${shortDate(points[0]?.date ?? "")} to ${shortDate(points.at(-1)?.date ?? "")}, at most ${format(max)} a day`
      : `${format(points.at(-1)?.value ?? 0)} ${unit} on ${shortDate(points.at(-1)?.date ?? "")}`;
  const line = points.map((p, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(p.value).toFixed(1)}`).join(" ");
  return (
    <figure class="chart" id={id} data-chart={id}>
      <figcaption>
        <strong>{title}</strong> <span class="muted">{summary}</span>
      </figcaption>
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title`} class="chart-svg">
        <title id={`${id}-title`}>
          {title}: {summary}
        </title>
        <line class="chart-axis" x1={PAD.left} x2={W - PAD.right} y1={PAD.top + innerH} y2={PAD.top + innerH} />
        <text class="chart-label" x={PAD.left} y={10}>
          {format(max)}
        </text>
        {kind === "bars"
          ? points.map((p, i) => {
              const h = (p.value / max) * innerH;
              return <rect class="chart-bar" x={(PAD.left + i * step + step * 0.15).toFixed(1)} y={(PAD.top + innerH - h).toFixed(1)} width={(step * 0.7).toFixed(1)} height={h.toFixed(1)} />;
            })
          : [
              <path class="chart-area" d={`${line} L${x(points.length - 1).toFixed(1)},${PAD.top + innerH} L${x(0).toFixed(1)},${PAD.top + innerH} Z`} />,
              <path class="chart-line" d={line} />,
            ]}
        <text class="chart-label" x={PAD.left} y={H - 4}>
          {shortDate(points[0]?.date ?? "")}
        </text>
        <text class="chart-label" x={W - PAD.right} y={H - 4} text-anchor="end">
          {shortDate(points.at(-1)?.date ?? "")}
        </text>
      </svg>
      <DataTable caption={title} columns={[["Date", (p: Point) => p.date], [unit[0].toUpperCase() + unit.slice(1), (p: Point) => format(p.value)]]} rows={points} />
    </figure>
  );
}

/** "Show data": the numbers behind a chart (or any list), as a table. */
export function DataTable<R>(props: { caption: string; columns: [string, (r: R) => Child][]; rows: R[]; summary?: string }) {
  return (
    <details class="chart-data">
      <summary>{props.summary ?? "Show data"}</summary>
      {/* Scrolls when long: focusable, so a keyboard can scroll it too. */}
      <div class="table-wrap" tabindex={0} role="region" aria-label={props.caption}>
        <table>
          <caption class="sr-only">{props.caption}</caption>
          <thead>
            <tr>
              {props.columns.map(([h]) => (
                <th scope="col">{h}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr>
                {props.columns.map(([, cell]) => (
                  <td>{cell(r)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}

/** Top referring hosts as a list with bars drawn by the same classes. */
export function Referrers(props: { id: string; referrers: { host: string; views: number }[] }) {
  const max = Math.max(1, ...props.referrers.map((r) => r.views));
  if (props.referrers.length === 0) return <p class="muted">No views in these days yet.</p>;
  return (
    <ol class="referrers" id={props.id}>
      {props.referrers.map((r) => (
        <li>
          <span class="referrer-host">{r.host}</span> <span class="referrer-views">{r.views.toLocaleString("en-US")}</span>
          <svg viewBox="0 0 100 4" class="referrer-bar" aria-hidden="true" preserveAspectRatio="none">
            <rect class="chart-bar" x="0" y="0" height="4" width={((r.views / max) * 100).toFixed(1)} />
          </svg>
        </li>
      ))}
    </ol>
  );
}
