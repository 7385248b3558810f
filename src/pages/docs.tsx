// {site_url}/docs: the API reference rendered on the server from the generated OpenAPI document,
// so it needs no third-party script and is always in step with the routes.
import { Layout } from "./layout";

type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema; enum?: unknown[]; description?: string; anyOf?: Schema[]; format?: string; nullable?: boolean; const?: unknown };
type Operation = { summary?: string; description?: string; tags?: string[]; security?: unknown[]; parameters?: { name: string; in: string; required?: boolean; schema?: Schema }[]; requestBody?: { content?: Record<string, { schema?: Schema }> }; responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }> };
type Doc = { info: { title: string; description?: string }; servers?: { url: string }[]; paths: Record<string, Record<string, Operation>>; components?: { schemas?: Record<string, Schema> } };

const METHODS = ["get", "post", "put", "patch", "delete"];

function refName(ref: string) {
  return ref.split("/").pop() ?? ref;
}

function typeLabel(s: Schema | undefined): string {
  if (!s) return "";
  if (s.$ref) return refName(s.$ref);
  if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(" | ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.anyOf) return s.anyOf.map(typeLabel).join(" | ");
  if (s.type === "array") return `${typeLabel(s.items)}[]`;
  const t = Array.isArray(s.type) ? s.type.join(" | ") : s.type ?? "object";
  return s.format ? `${t} (${s.format})` : t;
}

function Fields(props: { schema?: Schema; doc: Doc }) {
  let s = props.schema;
  if (s?.$ref) s = props.doc.components?.schemas?.[refName(s.$ref)];
  if (!s?.properties) return <code>{typeLabel(props.schema)}</code>;
  return (
    <table>
      <tbody>
        {Object.entries(s.properties).map(([name, prop]) => (
          <tr>
            <td><code>{name}</code>{s?.required?.includes(name) ? " *" : ""}</td>
            <td><code>{typeLabel(prop)}</code></td>
            <td class="muted">{prop.description ?? ""}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function anchor(method: string, path: string) {
  return `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, "-");
}

export function DocsPage(props: { doc: Doc }) {
  const { doc } = props;
  const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ path, method: m, op: item[m] })),
  );
  return (
    <Layout title={`${doc.info.title} reference`}>
      <h1>{doc.info.title}</h1>
      <p>{doc.info.description}</p>
      <p>
        Base URL: <code>{doc.servers?.[0]?.url}</code>. Machine-readable: <a href={`${doc.servers?.[0]?.url}/openapi.json`}>openapi.json</a> (OpenAPI 3.1).
      </p>
      <nav class="toc" aria-label="Operations">
        <ul>
          {ops.map(({ path, method, op }) => (
            <li><a href={`#${anchor(method, path)}`}><span class="method">{method}</span> {path}</a> <span class="muted">{op.summary}</span></li>
          ))}
        </ul>
      </nav>
      {ops.map(({ path, method, op }) => (
        <section class="op" id={anchor(method, path)}>
          <h3><span class="method">{method}</span> <code>{path}</code></h3>
          <p>{op.summary}{op.security?.length ? " (Bearer token)" : ""}</p>
          {op.description ? <p class="muted">{op.description}</p> : null}
          {op.parameters?.length ? (
            <>
              <h4>Parameters</h4>
              <table>
                <tbody>
                  {op.parameters.map((p) => (
                    <tr><td><code>{p.name}</code>{p.required ? " *" : ""}</td><td>{p.in}</td><td><code>{typeLabel(p.schema)}</code></td></tr>
                  ))}
                </tbody>
              </table>
            </>
          ) : null}
          {op.requestBody?.content?.["application/json"] ? (
            <>
              <h4>Request body</h4>
              <Fields schema={op.requestBody.content["application/json"].schema} doc={doc} />
            </>
          ) : null}
          <h4>Responses</h4>
          <table>
            <tbody>
              {Object.entries(op.responses ?? {}).map(([status, r]) => (
                <tr><td>{status}</td><td>{r.description}</td><td><code>{typeLabel(r.content?.["application/json"]?.schema)}</code></td></tr>
              ))}
            </tbody>
          </table>
        </section>
      ))}
    </Layout>
  );
}
