/** Texts of several sentences each (several chunks at 32 tokens), one person per text, for the crash tests. */
const FIRST = ["Alice", "Bruno", "Chloe", "Denis", "Emma", "Felix", "Grace", "Hugo", "Ines", "Jules"];
const LAST = ["Moreau", "Petit", "Garnier", "Roche", "Fabre", "Lemoine", "Caron", "Renard"];
const TOWNS = ["Lyon", "Nantes", "Lille", "Dijon", "Rennes", "Tours", "Brest", "Metz"];
const SHOPS = ["Blue Bakery", "Green Grocer", "Harbor Books", "Maple Cafe", "North Garage"];

export function crashTexts(n: number): string[] {
  return Array.from({ length: n }, (_, i) => {
    const who = `${FIRST[i % FIRST.length]} ${LAST[Math.floor(i / FIRST.length) % LAST.length]}`;
    const town = TOWNS[i % TOWNS.length]!;
    const next = TOWNS[(i + 3) % TOWNS.length]!;
    const shop = SHOPS[i % SHOPS.length]!;
    return [
      `${who} lives in ${town}.`,
      `${who} works at ${shop} in ${town} and likes the early shifts there.`,
      `On weekends ${who} visits friends in ${next} and plays chess at the old club.`,
      `${who} has a sister who studies music in ${next}.`,
      `Last spring ${who} adopted a dog called Pixel number ${i}.`,
      `${who} wants to learn Portuguese before the summer trip.`,
    ].join(" ");
  });
}
