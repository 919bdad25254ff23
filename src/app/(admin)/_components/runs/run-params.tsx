"use client";

import { type ReactNode, useState } from "react";
import { formatFullTime } from "@/lib/runs";
import type { RunKind } from "@/lib/stages";
import { JsonView } from "../json-view";
import s from "./run.module.css";

const FIRST_CHARS = 1500;

/** The remembered text: long ones show their start and a button for the rest. */
function LongText({ text, className }: { text: string; className?: string }) {
  const [all, setAll] = useState(false);
  const long = text.length > FIRST_CHARS;
  return (
    <>
      <blockquote className={`${s.text} ${className ?? ""}`} data-testid="run-text">
        {long && !all ? `${text.slice(0, FIRST_CHARS)}…` : text}
      </blockquote>
      {long && (
        <button type="button" className={`button small ${s.showAll}`} onClick={() => setAll(!all)}>
          {all ? "Show less" : `Show all ${text.length.toLocaleString()} characters`}
        </button>
      )}
    </>
  );
}

const str = (v: unknown) => (typeof v === "string" && v ? v : null);

function Fact({ term, children }: { term: string; children: ReactNode }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

/** A source as remember takes it: { kind, id, url, speaker }. */
function SourceLine({ source }: { source: Record<string, unknown> }) {
  const url = str(source.url);
  const parts = [str(source.kind), str(source.id) && `id ${String(source.id)}`, str(source.speaker) && `speaker ${String(source.speaker)}`].filter(Boolean);
  return (
    <>
      {parts.join(" · ") || (url ? null : <span className={s.muted}>none</span>)}
      {url && (
        <>
          {parts.length > 0 && " · "}
          <a href={url} rel="noreferrer noopener" target="_blank">
            {url}
          </a>
        </>
      )}
    </>
  );
}

/**
 * How the run was called. Remember: the text and its source; query: the question and the
 * session. The rest of the parameters follow as JSON; a purged run says so instead.
 */
export function RunParams({ kind, params }: { kind: RunKind; params: Record<string, unknown> }) {
  const purged = params.purged as { at?: string; by?: string } | undefined;
  if (purged) {
    return (
      <p className="note warn">
        The parameters of this run were purged{purged.at ? ` on ${formatFullTime(new Date(purged.at))}` : ""}
        {purged.by ? ` by ${purged.by}` : ""} (subjects.purge): the run log keeps that it happened, not the data.
      </p>
    );
  }
  if (kind === "remember") {
    const { text, source, userId, series, occurredAt, options, dataset: _dataset, ...rest } = params;
    return (
      <>
        {typeof text === "string" ? <LongText text={text} /> : <p className={s.muted}>No text kept.</p>}
        <dl className={`facts ${s.paramsFacts}`}>
          <Fact term="Source">{source && typeof source === "object" ? <SourceLine source={source as Record<string, unknown>} /> : <span className={s.muted}>none</span>}</Fact>
          {str(userId) && <Fact term="User">{String(userId)}</Fact>}
          {str(series) && <Fact term="Series">{String(series)}</Fact>}
          {str(occurredAt) && <Fact term="Occurred at">{formatFullTime(new Date(String(occurredAt)))}</Fact>}
          {typeof text === "string" && <Fact term="Length">{text.length.toLocaleString()} characters</Fact>}
        </dl>
        <MoreParams value={{ ...(options ? { options } : {}), ...rest }} />
      </>
    );
  }
  const { question, session, asOf, userId, limit, options, dataset: _dataset, ...rest } = params;
  return (
    <>
      <blockquote className={`${s.text} ${s.question}`} data-testid="run-question">
        {typeof question === "string" ? question : "—"}
      </blockquote>
      <dl className={`facts ${s.paramsFacts}`}>
        <Fact term="Session">{str(session) ?? <span className={s.muted}>none</span>}</Fact>
        {str(userId) && <Fact term="User">{String(userId)}</Fact>}
        <Fact term="As of">{str(asOf) ? formatFullTime(new Date(String(asOf))) : <span className={s.muted}>now (current facts)</span>}</Fact>
        {typeof limit === "number" && <Fact term="Source limit">{limit}</Fact>}
      </dl>
      <MoreParams value={{ ...(options ? { options } : {}), ...rest }} />
    </>
  );
}

function MoreParams({ value }: { value: Record<string, unknown> }) {
  if (Object.keys(value).length === 0) return null;
  return (
    <>
      <p className={s.outputsHead}>Other parameters</p>
      <JsonView value={value} label="Other parameters" />
    </>
  );
}
