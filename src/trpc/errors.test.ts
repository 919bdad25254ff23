import { TRPCClientError } from "@trpc/client";
import { describe, expect, it } from "vitest";
import { errorField, fieldError } from "./errors";

const apiError = (message: string, data: Record<string, unknown>) =>
  TRPCClientError.from({ error: { message, code: -32600, data: { httpStatus: 400, path: "remember.submit", ...data } } });

describe("field errors for forms", () => {
  it("names the field of a BAD_REQUEST and gives its message without the field's name", () => {
    const e = apiError("text: must not be empty", { code: "BAD_REQUEST", field: "text" });
    expect(errorField(e)).toBe("text");
    expect(fieldError(e, "text")).toBe("must not be empty");
    expect(fieldError(e, "series")).toBeNull();
  });

  it("leaves other errors to the form", () => {
    const e = apiError("not allowed", { code: "FORBIDDEN", field: null });
    expect(errorField(e)).toBeNull();
    expect(fieldError(e, "text")).toBeNull();
    expect(fieldError(new Error("offline"), "text")).toBeNull();
  });
});
