import type { Page } from "@playwright/test";

/** A full-page screenshot at the page's width, and one at 390 px (a phone): test-results/<name>[-390].png. */
export async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `test-results/${name}.png`, fullPage: true });
  const size = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: `test-results/${name}-390.png`, fullPage: true });
  if (size) await page.setViewportSize(size);
}
