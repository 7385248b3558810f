// The file page /f/<id> as its owner sees it. A stranger gets 404 for a private file and a notice instead of an
// age-restricted image; the signed-in owner gets the page with the image, drawn from owner links
// (owner-images.ts: {image_url} may be a host the session cookie never reaches), and a Download that goes
// through the web app with their session. Their page is `private, no-store`: a shared cache never keeps it.
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../platform/http/env";
import type { FileRow } from "../db/schema";
import { ANONYMOUS_VIEWER, isAgeRestricted, type LoadedFile, type Viewer } from "../serving/access";
import { SESSION_COOKIE, pageSession } from "./app/session";
import { AgeBadge } from "./app/ui";

/** Whether the owner's page differs from a stranger's: a private file (404 to them) or an age-restricted one. */
export const ownerSeesMore = (f: Pick<FileRow, "visibility" | "ageRestricted" | "ageRestrictedOverride">) => f.visibility === "private" || isAgeRestricted(f);

/**
 * Who the page is drawn for: the file's owner when the request carries their session and their page differs;
 * anonymous otherwise. Only then is the cookie read, so every other file's page stays one answer for everyone
 * and the anonymous path resolves no session.
 */
export async function pageViewer(c: Context<AppEnv>, loaded: LoadedFile | undefined): Promise<Viewer> {
  const f = loaded?.file;
  if (!f?.userId || !ownerSeesMore(f) || !getCookie(c, SESSION_COOKIE)) return ANONYMOUS_VIEWER;
  const s = await pageSession(c);
  // Adult: the owner's own age-restricted file is theirs to see, whatever their safe mode says.
  return s?.userId === f.userId ? { userId: s.userId, adult: true } : ANONYMOUS_VIEWER;
}

/** What only the owner reads on the page: why others see less, and where to change it. */
export function OwnerNotice(props: { file: FileRow }) {
  const { file } = props;
  return (
    <div class="notice" role="status">
      <p>
        Your image: <a href={`/app/files/${file.id}/edit`}>Edit</a> · <a href={`/app/files/${file.id}/similar`}>More like this</a>
      </p>
      {file.visibility === "private" ? (
        <p>
          Private: only you see this page and the image. Its links answer “Not found” to everyone else; share a private link from{" "}
          <a href={`/app/files/${file.id}/edit`}>Edit</a>.
        </p>
      ) : null}
      {isAgeRestricted(file) ? (
        <p>
          <AgeBadge /> Visitors see a notice instead of the image unless they are signed in, of age and have safe mode off.
        </p>
      ) : null}
    </div>
  );
}
