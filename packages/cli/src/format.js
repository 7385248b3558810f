// Human-readable sizes, durations and dates for the CLI's output.

/** 1234567 -> "1.2 MB" (SI units, as file managers show them). */
export function formatBytes(/** @type {number} */ bytes) {
  if (bytes < 1000) return `${bytes} B`;
  const units = ["kB", "MB", "GB", "TB"];
  let value = bytes;
  let unit = -1;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  return `${value >= 100 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** 1530 -> "1.5 s", 95000 -> "1 min 35 s". */
export function formatDuration(/** @type {number} */ ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** "1920×1080", or "" when the server does not know the size yet. */
export function formatDimensions(/** @type {number | null | undefined} */ width, /** @type {number | null | undefined} */ height) {
  return width && height ? `${width}×${height}` : "";
}

/** An ISO timestamp as "2026-01-31 14:05" in the local time zone. */
export function formatDate(/** @type {string} */ iso) {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}

/** "1 file", "3 files". */
export function plural(/** @type {number} */ n, /** @type {string} */ one, /** @type {string} */ many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}
