import type { StylesheetJson } from "cytoscape";

/* Cytoscape draws on a canvas: its colours are values, not CSS variables (these are globals.css's). */
const fg = "#1b1f24";
const muted = "#5b6470";
const accent = "#2f6feb";
const line = "#b8c0cc";

export const graphStyle: StylesheetJson = [
  {
    selector: "node",
    style: {
      label: "data(label)",
      width: 16,
      height: 16,
      "background-color": "#9fb3d1",
      color: fg,
      "font-size": 12,
      "text-valign": "bottom",
      "text-margin-y": 3,
      "text-wrap": "ellipsis",
      "text-max-width": "140px",
      "text-background-color": "#ffffff",
      "text-background-opacity": 0.85,
      "text-background-padding": "1px",
    },
  },
  { selector: "node.expanded", style: { "background-color": accent } },
  { selector: "node.selected-entity", style: { width: 24, height: 24, "border-width": 3, "border-color": fg, "font-weight": "bold", "font-size": 13 } },
  { selector: "node.value", style: { shape: "round-rectangle", width: 10, height: 10, "background-color": "#e3e6ea", "border-width": 1, "border-color": line, color: muted, "font-size": 11 } },
  {
    selector: "edge",
    style: {
      label: "data(label)",
      width: 1.5,
      "line-color": line,
      "target-arrow-color": line,
      "target-arrow-shape": "triangle",
      "arrow-scale": 0.8,
      "curve-style": "bezier",
      color: muted,
      "font-size": 10,
      "text-rotation": "autorotate",
      "text-background-color": "#ffffff",
      "text-background-opacity": 1,
      "text-background-padding": "1px",
    },
  },
];
