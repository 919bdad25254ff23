import { type RunKind, type StageDef, StageTables } from "../lib/stages";
import { ValidationError } from "./errors";
import { type Stage, stage, type StageSpec } from "./pipeline";

/*
 * The server's side of the stage tables (src/lib/stages.ts): pipelines build their stages from
 * them (the policy is the definition's, never written by hand), and inputs that ask for a stage
 * that is a placeholder in this version are refused. The pipeline core imports nothing of ours,
 * so the lookup happens here.
 */

/** The definition of `name` in `kind`'s table; throws for a name the table does not have. */
export function stageDef(kind: RunKind, name: string): StageDef {
  const def = (StageTables[kind] as readonly StageDef[]).find((s) => s.name === name);
  if (!def) throw new Error(`no stage ${name} in the ${kind} stage table`);
  return def;
}

/** A builder of `kind`'s stages: name and body here, policy from the stage's definition. */
export function stagesOf<const K extends RunKind>(kind: K) {
  type Name = (typeof StageTables)[K][number]["name"];
  return <J>(name: Name, spec: Omit<StageSpec<J>, "name" | "policy">): Stage<J> =>
    stage<J>({ ...spec, name, policy: stageDef(kind, name).policy });
}

/**
 * Refuses query.ask's `session`, deprecated: short-term memory is asked for by `scope` ({ userId,
 * channelId, serverId?, personaId? }), which a session id alone does not name.
 */
export function refuseSession(session: string | undefined): void {
  if (session !== undefined) throw new ValidationError("session", "is replaced by `scope` ({ userId, channelId, serverId?, personaId? }): short-term memory is kept per scope");
}
