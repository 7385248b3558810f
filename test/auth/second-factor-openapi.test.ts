// The two-factor routes (extensions.md §5) in /openapi.json, described like their neighbours: bodies, answers,
// security and the error codes each can answer with.
import { describe, expect, it } from "vitest";
import { call } from "../support/api";

describe("the two-factor routes in /openapi.json", () => {
  it("are described with their bodies, answers and error codes", async () => {
    const doc = (await call("/openapi.json")).body;
    const op = (method: string, path: string) => doc.paths[path][method];
    const statuses = (method: string, path: string) => Object.keys(op(method, path).responses).sort();
    const codes = (method: string, path: string, status: number) => Object.keys(op(method, path).responses[status]?.content["application/json"].examples ?? {});

    expect(statuses("get", "/auth/2fa")).toEqual(["200", "401", "403"]);
    expect(statuses("post", "/auth/2fa/totp")).toEqual(["200", "401", "403", "409"]);
    expect(codes("post", "/auth/2fa/totp", 409)).toEqual(["totp_already_enabled"]);
    expect(statuses("post", "/auth/2fa/totp/confirm")).toEqual(["200", "400", "401", "403", "409"]);
    expect(codes("post", "/auth/2fa/totp/confirm", 403)).toEqual(expect.arrayContaining(["api_key_not_allowed", "invalid_totp_code"]));
    expect(codes("post", "/auth/2fa/totp/confirm", 409)).toEqual(["totp_not_pending"]);
    expect(statuses("delete", "/auth/2fa/totp")).toEqual(["200", "400", "401", "403", "404", "429"]);
    expect(codes("delete", "/auth/2fa/totp", 403)).toEqual(expect.arrayContaining(["invalid_password", "invalid_totp_code"]));
    expect(codes("delete", "/auth/2fa/totp", 404)).toEqual(["totp_not_enabled"]);
    for (const [method, path] of [["get", "/auth/2fa"], ["post", "/auth/2fa/totp"], ["post", "/auth/2fa/totp/confirm"], ["delete", "/auth/2fa/totp"]]) {
      expect(op(method, path).security, `${method} ${path}`).toEqual([{ bearerAuth: [] }]);
      expect(op(method, path).tags).toEqual(["Auth"]);
    }

    expect(statuses("post", "/auth/login/2fa")).toEqual(["200", "400", "401", "403", "429"]);
    expect(codes("post", "/auth/login/2fa", 401)).toEqual(expect.arrayContaining(["invalid_mfa_token", "invalid_mfa_code"]));
    expect(codes("post", "/auth/login/2fa", 401)).not.toContain("invalid_credentials");
    expect(codes("post", "/auth/login", 401)).not.toContain("invalid_mfa_code");

    const schemas = doc.components.schemas;
    const login200 = op("post", "/auth/login").responses[200].content["application/json"].schema;
    expect(login200).toEqual({ $ref: "#/components/schemas/LoginResponse" });
    expect(schemas.LoginResponse.anyOf).toEqual([{ $ref: "#/components/schemas/AuthResponse" }, { $ref: "#/components/schemas/MfaRequired" }]);
    expect(Object.keys(schemas.MfaRequired.properties)).toEqual(["mfaRequired", "mfaToken", "methods"]);
    expect(schemas.MfaRequired.properties.methods.items.enum).toEqual(["totp", "passkey", "recovery"]);
    expect(Object.keys(schemas.LoginSecondStepRequest.properties)).toEqual(["mfaToken", "code", "response"]);
    expect(Object.keys(schemas.TotpEnrolment.properties)).toEqual(["secret", "otpauthUrl"]);
    expect(Object.keys(schemas.TotpConfirmRequest.properties)).toEqual(["code"]);
    expect(Object.keys(schemas.RecoveryCodes.properties)).toEqual(["recoveryCodes"]);
    expect(Object.keys(schemas.TotpTurnOffRequest.properties)).toEqual(["code", "password"]);
  });
});
