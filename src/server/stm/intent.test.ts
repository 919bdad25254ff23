import { describe, expect, it } from "vitest";
import { detectIntent } from "./intent";

/*
 * The intent gate: explicit requests to remember, with what to remember; talk about memory
 * (questions, reports, negations, mentions) that is none; and long messages of the shapes that
 * make careless regular expressions backtrack, which must simply return.
 */

const REQUESTS: [message: string, memoryText: string][] = [
  ["remember that my sister is called Ana", "my sister is called Ana"],
  ["Remember: the wifi password is hunter2", "the wifi password is hunter2"],
  ["please remember I'm vegetarian", "I'm vegetarian"],
  ["don't forget that the meeting moved to Friday", "the meeting moved to Friday"],
  ["do not forget my birthday is 3 May", "my birthday is 3 May"],
  ["note that I prefer email", "I prefer email"],
  ["make a note: Bob is on leave", "Bob is on leave"],
  ["keep in mind that I'm allergic to nuts", "I'm allergic to nuts"],
  ["for future reference, my flat is 4B", "my flat is 4B"],
  ["save this: the gate code is 4411", "the gate code is 4411"],
  ["can you remember that my train leaves at 7?", "my train leaves at 7"],
  ["I want you to remember that Lisa is my manager", "Lisa is my manager"],
  ["could you please note down that the boiler was serviced in March", "the boiler was serviced in March"],
  ["store this in your memory: my passport expires in 2031", "my passport expires in 2031"],
  ["memorize that the dog's name is Pixel", "the dog's name is Pixel"],
  ["Remember that my sister is called Ana.", "my sister is called Ana"],
  ["REMEMBER THAT I WORK NIGHTS!", "I WORK NIGHTS"],
  ["hey, remember that I moved to Porto", "I moved to Porto"],
  ["ok so remember my landlord is Mr. Costa", "my landlord is Mr. Costa"],
  ["Remember, I never eat pork.", "I never eat pork"],
  ["remember this for me: the spare key is under the mat", "the spare key is under the mat"],
  ["keep this in mind: I'm off every Monday", "I'm off every Monday"],
  ["make a note of my new number, 555-0142", "my new number, 555-0142"],
  ["please note I'm away in August", "I'm away in August"],
  ["bear in mind that I'm colour-blind", "I'm colour-blind"],
  ["don't forget about the dentist on Tuesday", "the dentist on Tuesday"],
  ["remember that Dr. Lee is my GP. She's great.", "Dr. Lee is my GP"],
  ["remember that I use e.g. vim. Thanks!", "I use e.g. vim"],
  ["remember that I'm vegetarian, please", "I'm vegetarian"],
  ["remember that I start at 9, ok?", "I start at 9"],
  ["- remember that the car is due for its MOT", "the car is due for its MOT"],
  ["make sure you remember that I hate cilantro", "I hate cilantro"],
  // several sentences: the request's own sentence
  ["Thanks for that! Also, remember that my sister is called Ana. She lives in Porto.", "my sister is called Ana"],
  ["Do you remember what I said about Lyon? Remember that I lived there for two years.", "I lived there for two years"],
  // the request as a tag at the end
  ["my flat is 4B, remember that", "my flat is 4B"],
  ["I take my coffee black - please don't forget it!", "I take my coffee black"],
  ["my locker is number 12, can you remember that?", "my locker is number 12"],
  ["the printer lives in room 301 for future reference", "the printer lives in room 301"],
  // a colon at the end of a line: the lines that follow, up to a blank line
  ["Remember this:\nmy flat is 4B\nthe buzzer is broken\n\nAnyway, how are you?", "my flat is 4B\nthe buzzer is broken"],
];

const NOT_REQUESTS: string[] = [
  "do you remember what I said about Lyon?",
  "Do you remember my sister's name?",
  "can you remember my sister's name?",
  "what did I ask you to remember?",
  "I remember when we went to Paris",
  "I forgot my keys",
  "she told me to remember the milk",
  "I always forget to note things down",
  "I'll remember that next time",
  "Ok, I'll remember that.",
  "Remember when we met?",
  "Remember that?",
  "remember me?",
  "remember to buy milk",
  "don't remember this",
  "please don't save this",
  "forget what I said about Bob",
  "you don't need to remember that",
  "the song 'Remember Me' is great",
  "'Remember Me' is a great song",
  "the notes app is broken",
  "Note taking is hard",
  "save the date for the party",
  "I stored the bikes in the shed",
  "Sorry, I don't remember that.",
  "",
  "   ",
];

describe("detectIntent", () => {
  it.each(REQUESTS)("a request: %j", (message, memoryText) => {
    expect(detectIntent(message)).toEqual({ memoryIntent: true, memoryText });
  });

  it.each(NOT_REQUESTS)("no request: %j", (message) => {
    expect(detectIntent(message)).toEqual({ memoryIntent: false });
  });

  it.each(["remember this", "don't forget!", "Remember that.", "please remember it", "Can you keep that in mind?", "note this down"])(
    "a bare request has nothing to store: %j",
    (message) => {
      expect(detectIntent(message)).toEqual({ memoryIntent: true });
    },
  );

  it.each([
    ["I'm vegan. Remember that.", "I'm vegan"],
    ["My locker is 17! Please don't forget it.", "My locker is 17"],
    ["From now on, remember that I take my coffee black.", "I take my coffee black"],
    ["Going forward, keep in mind that Friday is my day off", "Friday is my day off"],
  ])("a bare request after a sentence stores that sentence, and 'from now on' leads in: %j", (message, memoryText) => {
    expect(detectIntent(message)).toEqual({ memoryIntent: true, memoryText });
  });

  it("takes the first request with something to store", () => {
    expect(detectIntent("Remember this. Remember that my sister is called Ana.")).toEqual({
      memoryIntent: true,
      memoryText: "my sister is called Ana",
    });
  });

  it.each([
    ["don't forget that the bins go out on Thursday", "the bins go out on Thursday"],
    ["don\u2019t forget that the bins go out on Thursday", "the bins go out on Thursday"],
    ["dont forget that the bins go out on Thursday", "the bins go out on Thursday"],
    ["Remember I\u2019m vegetarian", "I\u2019m vegetarian"],
  ])("reads any apostrophe, and keeps the message's own: %j", (message, memoryText) => {
    expect(detectIntent(message)).toEqual({ memoryIntent: true, memoryText });
  });

  it("refuses a negation with a curly apostrophe", () => {
    expect(detectIntent("don\u2019t remember this")).toEqual({ memoryIntent: false });
    expect(detectIntent("\u2018Remember Me\u2019 is a great song")).toEqual({ memoryIntent: false });
  });

  it.each([
    ["@bot remember that my sister is called Ana", "my sister is called Ana"],
    ["@gligabao: remember that my sister is called Ana", "my sister is called Ana"],
    ["Gligabao, remember that my sister is called Ana", "my sister is called Ana"],
    ["hey bot: note that I prefer email", "I prefer email"],
    ["@bot, my flat is 4B, remember that", "my flat is 4B"],
  ])("reads past an @mention or a name: %j", (message, memoryText) => {
    expect(detectIntent(message)).toEqual({ memoryIntent: true, memoryText });
  });

  it("is no request when the mention is followed by talk about memory", () => {
    expect(detectIntent("@bot do you remember my sister's name?")).toEqual({ memoryIntent: false });
    expect(detectIntent("Gligabao, I remember when we went to Paris")).toEqual({ memoryIntent: false });
  });

  describe("long input returns (20,000 characters)", () => {
    const N = 20_000;
    const fill = (unit: string) => unit.repeat(Math.ceil(N / unit.length)).slice(0, N);

    it("a run of one letter", () => {
      expect(detectIntent("a".repeat(N))).toEqual({ memoryIntent: false });
    });

    it('"remember " again and again', () => {
      const result = detectIntent(fill("remember "));
      expect(result.memoryIntent).toBe(true);
      expect(result.memoryText?.startsWith("remember")).toBe(true);
    });

    it.each([
      ["remember that "],
      ["please "],
      ["hey, "],
      ["remember:\n"],
      ["remember. "],
      [". "],
      [" "],
      [", "],
      ["@a "],
      ["don't "],
      ["e.g. "],
      ["Dr. "],
      ["a, remember that"],
      ["for future reference "],
      ["can you "],
    ])("%j again and again", (unit) => {
      const message = fill(unit);
      const result = detectIntent(message);
      expect(typeof result.memoryIntent).toBe("boolean");
      // a request on a line of its own after it is still found
      expect(detectIntent(`${message}\nremember that my flat is 4B`).memoryIntent).toBe(true);
    });

    it("a request after a long message, and a long thing to remember", () => {
      expect(detectIntent(`${"blah ".repeat(4000)}. Remember that my flat is 4B.`)).toEqual({
        memoryIntent: true,
        memoryText: "my flat is 4B",
      });
      const long = "x".repeat(N);
      expect(detectIntent(`remember that ${long}`)).toEqual({ memoryIntent: true, memoryText: long });
    });
  });
});
