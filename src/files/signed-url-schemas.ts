// Request and answer of POST /files/:id/signed-url (extensions.md § 3; OpenAPI-described).
import { z } from "@hono/zod-openapi";
import { SIGNED_LINKS } from "../config";

const Pixels = z.number().int().min(1).max(99_999);

export const SignedUrlRequest = z
  .object({
    expiresIn: z.number().int().min(SIGNED_LINKS.minSeconds).max(SIGNED_LINKS.maxSeconds).openapi({ description: "Whole seconds the link works: 60 to 604800 (7 days)", example: 86_400 }),
    w: Pixels.optional().openapi({ description: "Variant width (snaps up the ladder, as ?w= does)" }),
    h: Pixels.optional().openapi({ description: "Variant height" }),
    fit: z.enum(["scale-down", "contain", "cover", "crop", "pad"]).optional(),
    format: z.enum(["auto", "avif", "webp", "jpeg", "png"]).optional(),
  })
  .strict()
  .openapi("SignedUrlRequest");

export const SignedUrl = z
  .object({
    url: z.string().openapi({ example: "https://i.example.com/file_V1StGXR8_Z5jdHi6B-myT?w=640&exp=1767225600&sig=..." }),
    expiresAt: z.string().openapi({ format: "date-time" }),
  })
  .openapi("SignedUrl");
