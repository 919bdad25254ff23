import { describe, expect, it } from "vitest";
import { EnvError, parseEnv } from "./env";

describe("env", () => {
  it("has sensible defaults: PGlite under ./.data, builtin models, port 3000", () => {
    const e = parseEnv({});
    expect(e).toMatchObject({ GB_DATA_DIR: "./.data", GB_MODELS: "builtin", PORT: 3000, GB_STAGE_MODELS: {} });
    expect(e.DATABASE_URL).toBeUndefined();
    expect(e.GB_MAX_DATASETS_PER_TEAM).toBe(1000);
    expect(parseEnv({ GB_MAX_DATASETS_PER_TEAM: "5" }).GB_MAX_DATASETS_PER_TEAM).toBe(5);
  });

  it("chooses openai when a key is set, unless told otherwise", () => {
    expect(parseEnv({ OPENAI_API_KEY: "sk-x" }).GB_MODELS).toBe("openai");
    expect(parseEnv({ OPENAI_API_KEY: "sk-x", GB_MODELS: "builtin" }).GB_MODELS).toBe("builtin");
  });

  it("treats empty values as unset", () => {
    expect(parseEnv({ DATABASE_URL: "", PORT: " ", OPENAI_API_KEY: "" })).toMatchObject({ PORT: 3000, GB_MODELS: "builtin" });
  });

  it.each([
    [{ DATABASE_URL: "mysql://x" }, "DATABASE_URL"],
    [{ PORT: "abc" }, "PORT"],
    [{ PORT: "70000" }, "PORT"],
    [{ GB_MODELS: "claude" }, "GB_MODELS"],
    [{ OPENAI_BASE_URL: "not a url" }, "OPENAI_BASE_URL"],
    [{ GB_MODELS: "openai" }, "OPENAI_API_KEY"],
    [{ GB_STAGE_MODELS: "{oops" }, "GB_STAGE_MODELS"],
    [{ GB_MAX_DATASETS_PER_TEAM: "0" }, "GB_MAX_DATASETS_PER_TEAM"],
    [{ GB_MAX_DATASETS_PER_TEAM: "many" }, "GB_MAX_DATASETS_PER_TEAM"],
    [{ GB_STAGE_MODELS: '{"query":{"reasoning":"max"}}' }, "GB_STAGE_MODELS"],
  ])("names the variable of a bad value: %j", (source, variable) => {
    let error: unknown;
    try {
      parseEnv(source);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    expect((error as EnvError).issues.map((i) => i.variable)).toContain(variable);
    expect((error as EnvError).message).toContain(variable);
  });

  it("parses per-stage model options", () => {
    const e = parseEnv({ GB_STAGE_MODELS: '{"extract_graph":{"model":"gpt-4o","reasoning":"low"}}' });
    expect(e.GB_STAGE_MODELS).toEqual({ extract_graph: { model: "gpt-4o", reasoning: "low" } });
  });
});
