// The passkey routes (extensions.md §5) in /openapi.json, described like their neighbours: bodies, answers,
// security and the error codes each can answer with.
import { describe, expect, it } from "vitest";
import { call } from "../support/api";

describe("the passkey routes in /openapi.json", () => {
  it("are described with their bodies, answers and error codes", async () => {
    const doc = (await call("/openapi.json")).body;
    const op = (method: string, path: string) => doc.paths[path][method];
    const statuses = (method: string, path: string) => Object.keys(op(method, path).responses).sort();
    const codes = (method: string, path: string, status: number) => Object.keys(op(method, path).responses[status]?.content["application/json"].examples ?? {});

    expect(statuses("post", "/auth/passkeys/options")).toEqual(["200", "401", "403"]);
    expect(statuses("post", "/auth/passkeys")).toEqual(["201", "400", "401", "403", "409"]);
    expect(codes("post", "/auth/passkeys", 400)).toEqual(expect.arrayContaining(["invalid_passkey_challenge", "invalid_passkey_registration", "too_many_passkeys"]));
    expect(codes("post", "/auth/passkeys", 409)).toEqual(["passkey_already_registered"]);
    expect(statuses("get", "/auth/passkeys")).toEqual(["200", "401", "403"]);
    expect(statuses("delete", "/auth/passkeys/{id}")).toEqual(["200", "400", "401", "403", "404", "429"]);
    expect(codes("delete", "/auth/passkeys/{id}", 403)).toEqual(expect.arrayContaining(["invalid_password", "invalid_totp_code"]));
    expect(codes("delete", "/auth/passkeys/{id}", 404)).toEqual(["passkey_not_found"]);
    for (const [method, path] of [["post", "/auth/passkeys/options"], ["post", "/auth/passkeys"], ["get", "/auth/passkeys"], ["delete", "/auth/passkeys/{id}"]]) {
      expect(op(method, path).security, `${method} ${path}`).toEqual([{ bearerAuth: [] }]);
      expect(op(method, path).tags).toEqual(["Auth"]);
    }

    expect(statuses("post", "/auth/passkeys/login/options")).toEqual(["200", "400", "401", "403", "404"]);
    expect(codes("post", "/auth/passkeys/login/options", 401)).toEqual(expect.arrayContaining(["invalid_mfa_token"]));
    expect(codes("post", "/auth/passkeys/login/options", 404)).toEqual(["passkey_not_found"]);
    expect(statuses("post", "/auth/passkeys/login")).toEqual(["200", "400", "401", "403", "429"]);
    expect(codes("post", "/auth/passkeys/login", 401)).toEqual(expect.arrayContaining(["invalid_passkey", "invalid_mfa_token"]));
    expect(codes("post", "/auth/login/2fa", 401)).toEqual(expect.arrayContaining(["invalid_passkey", "invalid_mfa_code", "invalid_mfa_token"]));
    for (const path of ["/auth/passkeys/login/options", "/auth/passkeys/login"]) expect(op("post", path).security, path).toEqual([]); // public: stated as no credential

    const schemas = doc.components.schemas;
    expect(Object.keys(schemas.Passkey.properties)).toEqual(["id", "name", "createdAt", "lastUsedAt"]);
    expect(Object.keys(schemas.PasskeyList.properties)).toEqual(["passkeys"]);
    expect(Object.keys(schemas.PasskeyAdded.properties)).toEqual(["id", "name", "createdAt", "lastUsedAt", "recoveryCodes"]);
    expect(Object.keys(schemas.PasskeyRegistrationRequest.properties)).toEqual(["name", "response"]);
    expect(Object.keys(schemas.PasskeySignInRequest.properties)).toEqual(["response", "mfaToken"]);
    expect(Object.keys(schemas.PasskeySignInOptionsRequest.properties)).toEqual(["mfaToken"]);
    expect(Object.keys(schemas.PasskeyRemovalRequest.properties)).toEqual(["code", "password"]);
    expect(Object.keys(schemas.LoginSecondStepRequest.properties)).toEqual(["mfaToken", "code", "response"]);
    expect(op("post", "/auth/passkeys/login").responses[200].content["application/json"].schema).toEqual({ $ref: "#/components/schemas/AuthResponse" });
  });
});
