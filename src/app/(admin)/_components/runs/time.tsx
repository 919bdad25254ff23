import { formatFullTime } from "@/lib/runs";

/** A moment to the millisecond, with its ISO form on hover and for machines. */
export function Time({ date, none = "not yet" }: { date: Date | null | undefined; none?: string }) {
  if (!date) return <>{none}</>;
  const iso = date.toISOString();
  return (
    <time dateTime={iso} title={iso}>
      {formatFullTime(date)}
    </time>
  );
}
