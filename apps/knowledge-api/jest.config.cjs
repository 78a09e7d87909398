const { preset } = require('../../tools/jest/preset.cjs');

// linkedom's selector engine (css-select and its helpers) and fast-xml-parser's helpers are ESM-only: compiled to CommonJS for Jest
// like the preset's ESM-only packages (Node itself loads them through require(esm)).
const esmOnly = [
  'css-select', 'boolbase', 'css-what', 'domhandler', 'domelementtype', 'domutils', 'dom-serializer', 'entities', 'nth-check',
  'cssomnom', 'htmlparser2', 'uhyphen', 'fast-xml-parser', '@nodable/entities', 'fast-xml-builder', 'path-expression-matcher',
  'xml-naming', 'is-unsafe', 'strnum', 'anynum',
];
const base = preset(__dirname);
const kept = base.transformIgnorePatterns[0].match(/\(\?!\((.*)\)\/\)/)[1];

module.exports = {
  ...base,
  transformIgnorePatterns: [`/node_modules/(?!(${kept}|${esmOnly.join('|')})/)`],
};
