/** The part of pbf 3 (Mapbox's protocol buffers reader) that the gazetteer uses (src/server/enrich/geo/gazetteer.ts). */
declare module "pbf" {
  export default class Pbf {
    constructor(buffer: Uint8Array);
    pos: number;
    length: number;
    readMessage<T>(read: (tag: number, result: T, pbf: Pbf) => void, result: T): T;
    readSVarint(): number;
    readVarint(): number;
    readString(): string;
  }
}
