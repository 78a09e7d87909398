import { parseTemplate, type ThemeData } from './go-template';

const data: ThemeData = {
  DisplayName: 'My <App>',
  ShowDetails: true,
  InstanceStates: [
    { Name: 'web', Status: 'ready', Error: '', CurrentReplicas: 1, DesiredReplicas: 1 },
    { Name: 'db', Status: 'not-ready', Error: 'boom', CurrentReplicas: 0, DesiredReplicas: 1 },
  ],
  SessionDuration: '5m0s',
  RefreshFrequency: '5',
};

describe("the Go template subset of Sablier's themes", () => {
  it.each([
    ['{{ .DisplayName }}', 'My &lt;App&gt;'],
    ['<meta http-equiv="refresh" content="{{ .RefreshFrequency }}">', '<meta http-equiv="refresh" content="5">'],
    ['{{ if .ShowDetails }}yes{{ else }}no{{ end }}', 'yes'],
    ['{{range $i, $instance := .InstanceStates}}[{{$i}}:{{$instance.Name}} {{$instance.CurrentReplicas}}/{{$instance.DesiredReplicas}}]{{end}}', '[0:web 1/1][1:db 0/1]'],
    ['{{ range .InstanceStates }}{{ .Name }}={{ .Status }}{{ if .Error }}({{ .Error }}){{ end }};{{ end }}', 'web=ready;db=not-ready(boom);'],
    ['{{ range $x := .InstanceStates }}{{ $.DisplayName }}{{ end }}', 'My &lt;App&gt;My &lt;App&gt;'],
    ['a  {{- .SessionDuration -}}  b', 'a5m0sb'],
    ['{{/* a comment */}}x', 'x'],
  ])('%s', (source, expected) => {
    expect(parseTemplate(source).render(data)).toBe(expected);
  });

  it('renders else of an empty range', () => {
    expect(parseTemplate('{{ range .InstanceStates }}x{{ else }}none{{ end }}').render({ ...data, InstanceStates: [] })).toBe('none');
  });

  it.each([
    ['{{ .Nope }}', /line 1: no field Nope here; known: DisplayName/],
    ['\n\n{{ range .InstanceStates }}{{ .DisplayName }}{{ end }}', /line 3: no field DisplayName here; known: Name/],
    ['{{ if .ShowDetails }}', /unclosed block/],
    ['{{ end }}', /line 1: unexpected \{\{end\}\}/],
    ['{{ .DisplayName ', /\{\{ without \}\}/],
    ['{{ range .DisplayName }}{{ end }}', /range needs a list/],
    ['{{ $nope }}', /undefined variable \$nope/],
    ['{{ printf "%s" .DisplayName }}', /unsupported action/],
  ])('refuses %s', (source, message) => {
    expect(() => parseTemplate(source)).toThrow(message);
  });
});
