/**
 * Common English nicknames and the given names they stand for. No npm package offers such a
 * table in a form worth a dependency, so here is a small one. A nickname pair alone never
 * merges two people (many Bobs are not this Robert): the resolver also wants an alias linking
 * them. Lower-case; a nickname may belong to several names (Alex: Alexander, Alexandra).
 */
const TABLE: Readonly<Record<string, string>> = {
  robert: "bob bobby rob robbie bert",
  william: "bill billy will willie liam",
  elizabeth: "liz lizzie beth betty eliza libby",
  james: "jim jimmy jamie",
  michael: "mike mikey mick",
  katherine: "kate katie kathy kat",
  catherine: "cathy kate katie cat",
  thomas: "tom tommy",
  david: "dave davey",
  christopher: "chris topher",
  christine: "chris chrissy tina",
  daniel: "dan danny",
  jennifer: "jen jenny jenn",
  alexander: "alex al sandy xander",
  alexandra: "alex lexi sandra",
  samuel: "sam sammy",
  samantha: "sam sammy",
  joseph: "joe joey",
  benjamin: "ben benny",
  nicholas: "nick nicky",
  anthony: "tony",
  matthew: "matt matty",
  steven: "steve stevie",
  stephen: "steve stevie",
  andrew: "andy drew",
  patrick: "pat paddy",
  patricia: "pat patty trish",
  jonathan: "jon jonny",
  john: "jack johnny",
  susan: "sue susie",
  margaret: "meg maggie peggy marge",
  rebecca: "becky becca",
  richard: "dick rick ricky rich",
  edward: "ed eddie ted ned",
  charles: "charlie chuck chas",
  henry: "harry hank",
  timothy: "tim timmy",
  gregory: "greg",
  jeffrey: "jeff",
  kenneth: "ken kenny",
  lawrence: "larry",
  ronald: "ron ronnie",
  donald: "don donnie",
  douglas: "doug",
  raymond: "ray",
  gerald: "gerry jerry",
  jerome: "jerry",
  peter: "pete",
  frederick: "fred freddie",
  theodore: "ted teddy theo",
  victoria: "vicky tori",
  jessica: "jess jessie",
  deborah: "deb debbie",
  dorothy: "dot dottie",
  barbara: "barb babs",
  kimberly: "kim",
  pamela: "pam",
  abigail: "abby",
  natalie: "nat",
  nathaniel: "nate nat",
  nathan: "nate",
  zachary: "zach zack",
  joshua: "josh",
  jacob: "jake",
  gabriel: "gabe",
  gabrielle: "gabby",
  isabella: "bella izzy",
  isabel: "izzy bella",
  eleanor: "ellie nell",
  helen: "nell",
  angela: "angie",
  cynthia: "cindy",
  judith: "judy",
  sandra: "sandy",
  frances: "fran",
  francis: "frank",
  franklin: "frank",
  leonard: "leo len lenny",
  vincent: "vince vinny",
  philip: "phil",
  phillip: "phil",
  walter: "walt wally",
  albert: "al bert",
  alfred: "alf alfie fred",
};

const BY_NICK = new Map<string, Set<string>>();
for (const [name, nicks] of Object.entries(TABLE)) {
  for (const nick of nicks.split(" ")) BY_NICK.set(nick, new Set([...(BY_NICK.get(nick) ?? []), name]));
}

/** Is one of two (lower-case) first names a nickname of the other? ("bob", "robert") → true. */
export function isNicknamePair(a: string, b: string): boolean {
  if (a === b) return false;
  const full = (x: string): ReadonlySet<string> => BY_NICK.get(x) ?? new Set();
  if (full(a).has(b) || full(b).has(a)) return true;
  // two nicknames of one name: "bobby" / "rob"
  return [...full(a)].some((n) => full(b).has(n));
}
