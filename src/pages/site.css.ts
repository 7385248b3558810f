// The site's stylesheet, served from /assets/site.css so pages can keep a CSP without 'unsafe-inline'.
export const SITE_CSS = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #5b6570; --bg: #fff; --line: #d9dee3; --accent: #0b6bcb; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --muted: #9aa4ad; --bg: #14171a; --line: #2c3238; --accent: #5aa6f0; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; gap: 1.5rem; align-items: center; padding: .75rem 1.25rem; border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 700; text-decoration: none; color: var(--fg); }
main { max-width: 64rem; margin: 0 auto; padding: 1.25rem; }
a { color: var(--accent); }
code, pre { font: 14px/1.45 ui-monospace, monospace; }
pre { overflow-x: auto; padding: .75rem; border: 1px solid var(--line); border-radius: 6px; }
.op { border: 1px solid var(--line); border-radius: 8px; margin: 1rem 0; padding: .75rem 1rem; }
.op h3 { margin: 0 0 .25rem; font-size: 1rem; }
.method { display: inline-block; min-width: 4.5rem; font-weight: 700; text-transform: uppercase; }
.muted { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
nav.toc ul { columns: 2; }
`;
