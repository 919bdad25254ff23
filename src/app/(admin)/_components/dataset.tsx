"use client";

import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useEffect } from "react";
import { useAllDatasets } from "@/trpc/datasets";

/*
 * The dataset a view shows is in its URL (?dataset=<name>), so that a link can be shared. A
 * view opened without one takes the last dataset chosen here (or "default") and writes it into
 * the URL. Pages that use these wrap their client view in <Suspense> (useSearchParams).
 */

const LAST = "gb_dataset";

function remembered(): string {
  if (typeof window === "undefined") return "default";
  return window.localStorage.getItem(LAST) ?? "default";
}

/** The dataset of the URL; puts one there when it is missing. */
export function useDataset(): string {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const fromUrl = params.get("dataset");
  const dataset = fromUrl ?? remembered();
  useEffect(() => {
    if (fromUrl) window.localStorage.setItem(LAST, fromUrl);
    else router.replace(withDataset(pathname, dataset, params));
  }, [fromUrl, dataset, pathname, params, router]);
  return dataset;
}

/** `path` with ?dataset=…, keeping the other parameters of `keep` (none by default). */
export function withDataset(path: string, dataset: string, keep?: URLSearchParams): string {
  const next = new URLSearchParams(keep);
  next.set("dataset", dataset);
  return `${path}?${next.toString()}`;
}

/** A select of the team's datasets, showing `value`; `onPick` gets the name chosen. */
function DatasetSelect({ value, onPick }: { value: string; onPick: (name: string) => void }) {
  const list = useAllDatasets();
  const names = list.data?.map((d) => d.name) ?? [];
  if (!names.includes(value)) names.unshift(value);
  return (
    <label className="dataset-switcher">
      <span>Dataset</span>
      <select
        value={value}
        data-testid="dataset-switcher"
        onChange={(e) => {
          window.localStorage.setItem(LAST, e.target.value);
          onPick(e.target.value);
        }}
      >
        {names.map((n) => (
          <option key={n} value={n}>
            {n}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The URL's dataset; choosing another reloads the view on it (paging and filters reset). */
export function DatasetSwitcher() {
  const router = useRouter();
  const pathname = usePathname();
  const dataset = useDataset();
  return <DatasetSelect value={dataset} onPick={(name) => router.push(withDataset(pathname, name))} />;
}

/**
 * On a page of one run or inference, which belongs to its dataset: shows that dataset, and
 * choosing another goes to `list`, that dataset's view.
 */
export function DatasetJump({ current, list }: { current: string; list: string }) {
  const router = useRouter();
  return <DatasetSelect value={current} onPick={(name) => name !== current && router.push(withDataset(list, name))} />;
}
