// {site_url}/f/<file_id>/report: the report form of a file page. It posts here, and the report goes to the
// contract's POST /moderation/report in-process (its validation, rate limits and escalation apply). Anyone may
// report; a foreign Origin is refused (csrf()).
import { Hono, type Context } from "hono";
import { csrf } from "hono/csrf";
import type { AppEnv } from "../platform/http/env";
import { REPORT_REASONS } from "../db/schema";
import { Layout } from "./layout";
import { Notice } from "./app/ui";
import { call } from "@imghost/client";
import { apiOf, result, apiMessage } from "./app/api";

const REASON_TEXT: Record<(typeof REPORT_REASONS)[number], string> = {
  csam: "Child sexual abuse material",
  terrorism: "Terrorist content",
  adult_content: "Adult content that is not marked",
  violence: "Violence or gore",
  harassment: "Harassment",
  hate_speech: "Hate speech",
  self_harm: "Self-harm",
  spam: "Spam",
  copyright: "Copyright infringement",
  other: "Something else",
};

function ReportPage(props: { fileId: string; error?: string; done?: string }) {
  return (
    <Layout title="Report an image - imghost">
      <h1>Report an image</h1>
      {props.done ? (
        <>
          <Notice kind="ok">{props.done}</Notice>
          <p>
            <a href={`/f/${props.fileId}`}>Back to the image</a>
          </p>
        </>
      ) : (
        <>
          {props.error ? <Notice kind="error">{props.error}</Notice> : null}
          <p>
            Tell our moderators what is wrong with <a href={`/f/${props.fileId}`}>this image</a>. Reports of abuse material hide it at once while it is reviewed.
          </p>
          <form method="post" action={`/f/${props.fileId}/report`} class="stack panel">
            <label for="reason">Reason</label>
            <select id="reason" name="reason" required>
              {REPORT_REASONS.map((r) => (
                <option value={r}>{REASON_TEXT[r]}</option>
              ))}
            </select>
            <label for="details">Details (optional)</label>
            <textarea id="details" name="details" rows={4} maxlength={2000}></textarea>
            <label for="remail">Your e-mail (optional, only moderators see it)</label>
            <input id="remail" name="email" type="email" autocomplete="email" />
            <button type="submit">Send report</button>
          </form>
        </>
      )}
    </Layout>
  );
}

export function reportPages(deps: { headers: (c: Context<AppEnv>) => void }) {
  const pages = new Hono<AppEnv>();
  const sameOrigin = csrf({ origin: (origin, c) => origin === new URL(c.req.url).origin });
  const guard = async (c: Context<AppEnv>, next: () => Promise<void>) => {
    deps.headers(c);
    c.header("Cache-Control", "no-store");
    let passed = false;
    await sameOrigin(c, async () => {
      passed = true;
    }).catch(() => undefined);
    if (!passed) return c.text("Cross-site form posts are refused", 403);
    await next();
  };
  pages.use("/f/:id/report", guard);

  pages.get("/f/:id/report", (c) => c.html(<ReportPage fileId={c.req.param("id")} />));
  pages.post("/f/:id/report", async (c) => {
    const form = await c.req.parseBody();
    const text = (k: string) => (typeof form[k] === "string" ? (form[k] as string) : "");
    const reason = text("reason") as (typeof REPORT_REASONS)[number];
    const r = await result(call(apiOf(c), "moderation.report", { body: { fileId: c.req.param("id"), reason, details: text("details"), ...(text("email") ? { email: text("email") } : {}) } }));
    if (!r.ok) return c.html(<ReportPage fileId={c.req.param("id")} error={apiMessage(r)} />, r.status === 429 ? 429 : r.status === 404 ? 404 : 400);
    return c.html(<ReportPage fileId={c.req.param("id")} done="Thank you: the report reached our moderators." />);
  });
  return pages;
}
