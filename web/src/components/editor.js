// The C editor: CodeMirror 6 with C highlighting (@codemirror/lang-cpp),
// line numbers, history, search and bracket matching. Tab indents; Escape
// then Tab moves the focus on (CodeMirror's tab-focus mode), so the editor
// never traps a keyboard user. Mod-Enter submits.
import { EditorState } from '@codemirror/state';
import {
  EditorView, keymap, lineNumbers, highlightActiveLine, highlightActiveLineGutter,
  drawSelection, highlightSpecialChars, rectangularSelection,
} from '@codemirror/view';
import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import {
  syntaxHighlighting, defaultHighlightStyle, indentOnInput, bracketMatching, indentUnit,
} from '@codemirror/language';
import { searchKeymap, highlightSelectionMatches } from '@codemirror/search';
import { cpp } from '@codemirror/lang-cpp';

const theme = EditorView.theme({
  '&': { fontSize: '14px', border: '1px solid var(--border)', borderRadius: '6px',
         backgroundColor: 'var(--code-bg)' },
  '&.cm-focused': { outline: '2px solid var(--focus)', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.45' },
  '.cm-gutters': { backgroundColor: 'var(--code-gutter)', borderRight: '1px solid var(--border)',
                   color: 'var(--muted)' },
  '.cm-activeLine': { backgroundColor: 'var(--code-active)' },
  '.cm-activeLineGutter': { backgroundColor: 'var(--code-active)', color: 'var(--fg)' },
});

// createEditor(parent, {doc, readOnly, label, onChange, onSubmit, height})
// returns {view, getText, setText, gotoLine, focus}.
export function createEditor(parent, opts) {
  const extensions = [
    lineNumbers(),
    highlightActiveLineGutter(),
    highlightSpecialChars(),
    history(),
    drawSelection(),
    indentOnInput(),
    bracketMatching(),
    rectangularSelection(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    indentUnit.of('    '),
    cpp(),
    theme,
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ 'aria-label': opts.label || 'C source' }),
    keymap.of([
      { key: 'Mod-Enter', run: () => { if (opts.onSubmit) opts.onSubmit(); return true; } },
      ...defaultKeymap, ...historyKeymap, ...searchKeymap, indentWithTab,
    ]),
  ];
  if (opts.readOnly) extensions.push(EditorState.readOnly.of(true));
  if (opts.onChange) {
    extensions.push(EditorView.updateListener.of((u) => {
      if (u.docChanged) opts.onChange(u.state.doc.toString());
    }));
  }
  if (opts.height) extensions.push(EditorView.theme({ '.cm-scroller': { maxHeight: opts.height } }));
  const view = new EditorView({
    state: EditorState.create({ doc: opts.doc || '', extensions }),
    parent,
  });
  return {
    view,
    getText: () => view.state.doc.toString(),
    setText: (text) => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }),
    focus: () => view.focus(),
    // Moves the cursor to a 1-based line and column, scrolls it into view
    // and focuses the editor. Out-of-range values are clamped.
    gotoLine(line, col) {
      const doc = view.state.doc;
      const l = doc.line(Math.min(Math.max(1, line | 0), doc.lines));
      const pos = Math.min(l.from + Math.max(0, (col | 0) - 1), l.to);
      view.dispatch({ selection: { anchor: pos }, scrollIntoView: true,
                      effects: EditorView.scrollIntoView(pos, { y: 'center' }) });
      view.focus();
    },
  };
}
