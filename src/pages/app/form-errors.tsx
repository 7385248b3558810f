// A refused form shown again with what was typed and each message beside its field: the API's validation
// details (`details.fields`, by path) and the codes that are about one field (e-mail taken, wrong password, ...)
// land on that field; what is about none of them stays in the notice above the form.
import type { ApiErrorBody } from "./api";
import { apiMessage } from "./api";

/** The form's field names, by the API's field path (its first segment) or error code. */
export type FieldMap = { paths?: Record<string, string>; codes?: Record<string, string> };
export type FieldErrors = { byField: Record<string, string>; notice?: string };

/** The notice above a form whose messages sit beside its fields (an alert, so a screen reader hears it). */
const MARKED = "Check the fields marked below.";

const sentence = (message: string) => (message ? message.charAt(0).toUpperCase() + message.slice(1) : message);

export function fieldErrors(r: { ok: false; status: number; body: ApiErrorBody }, map: FieldMap): FieldErrors {
  const byField: Record<string, string> = {};
  const code = r.body?.details?.code;
  const codeField = code ? map.codes?.[code] : undefined;
  if (codeField && r.status !== 429) {
    byField[codeField] = r.body?.message ?? apiMessage(r);
    return { byField, notice: MARKED };
  }
  const rest: string[] = [];
  for (const f of Array.isArray(r.body?.details?.fields) ? r.body.details.fields : []) {
    const field = map.paths?.[f.path.split(".")[0]];
    if (field && !byField[field]) byField[field] = sentence(f.message);
    else if (!field) rest.push(`${f.path || "form"}: ${f.message}`);
  }
  if (Object.keys(byField).length === 0) return { byField, notice: apiMessage(r) };
  return { byField, notice: rest.length ? `${MARKED} Also: ${rest.join("; ")}` : MARKED };
}

/** The attributes that tie a field to its message (none when it has none). */
export function invalid(errors: FieldErrors | undefined, name: string, id: string) {
  return errors?.byField[name] ? { "aria-invalid": "true", "aria-describedby": `${id}-error` } : {};
}

/** The message beside the field `id` (nothing when it has none). */
export function FieldError(props: { errors?: FieldErrors; name: string; id: string }) {
  const message = props.errors?.byField[props.name];
  return message ? <p class="field-error" id={`${props.id}-error`}>{message}</p> : null;
}
