import { json } from '@codemirror/lang-json';
import { yaml } from '@codemirror/lang-yaml';
import { lintGutter, setDiagnostics, type Diagnostic } from '@codemirror/lint';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';
import type { PlacedIssue } from './manifest-diagnostics';
import type { ManifestFormat } from './manifest-status';

const language = (format: ManifestFormat) => (format === 'json' ? json() : yaml());

/**
 * A CodeMirror editor of a manifest. `issues` are shown as lint diagnostics at their place (underline,
 * gutter marker, tooltip); `readOnly` shows a stored manifest as it is.
 */
export function ManifestEditor({
  value,
  format,
  onChange,
  issues = [],
  readOnly = false,
  label,
  minHeight = 320,
}: {
  value: string;
  format: ManifestFormat;
  onChange?: (text: string) => void;
  issues?: readonly PlacedIssue[];
  readOnly?: boolean;
  label: string;
  minHeight?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const languageSlot = useRef(new Compartment());
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: value,
        extensions: [
          basicSetup,
          lintGutter(),
          languageSlot.current.of(language(format)),
          EditorState.readOnly.of(readOnly),
          EditorView.editable.of(!readOnly),
          EditorView.contentAttributes.of({ 'aria-label': label }),
          EditorView.theme({ '&': { minHeight: `${minHeight}px`, fontSize: '13px' }, '.cm-scroller': { minHeight: `${minHeight}px` } }),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) changed.current?.(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The editor is made once; later values arrive through the effects below.
  }, []);

  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: languageSlot.current.reconfigure(language(format)) });
  }, [format]);

  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const length = editor.state.doc.length;
    const diagnostics: Diagnostic[] = issues.map((issue) => ({
      from: Math.min(issue.from, length),
      to: Math.min(Math.max(issue.to, issue.from), length),
      severity: issue.severity,
      source: issue.code,
      message: `${issue.path}: ${issue.message}`,
    }));
    editor.dispatch(setDiagnostics(editor.state, diagnostics));
  }, [issues, value]);

  return <div ref={host} data-testid="manifest-editor" style={{ border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4, overflow: 'hidden' }} />;
}
