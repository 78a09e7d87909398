import { renderTemplate } from './render';

describe('renderTemplate', () => {
  const vars = { name: 'Ada', data: { plan: 'pro', nested: { x: 1 } }, empty: '', html: '<b>&</b>' };

  it('fills paths, defaults and escapes HTML when asked', () => {
    expect(renderTemplate('Hi {{ name }}, {{data.plan}} {{data.nested.x}}', vars, false)).toBe('Hi Ada, pro 1');
    expect(renderTemplate('{{missing ?? "friend"}} {{empty ?? \'none\'}} {{missing ?? bare}}', vars, false)).toBe('friend none bare');
    expect(renderTemplate('{{missing}}|{{html}}', vars, true)).toBe('|&lt;b&gt;&amp;&lt;/b&gt;');
    expect(renderTemplate('{{data}}', vars, false)).toBe('{"plan":"pro","nested":{"x":1}}');
    expect(renderTemplate('no placeholders {single}', vars, true)).toBe('no placeholders {single}');
  });
});
