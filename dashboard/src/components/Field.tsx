import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

interface FieldProps {
  label: string;
  value: string;
  onInput: (value: string) => void;
  type?: 'text' | 'email' | 'password' | 'url' | 'number';
  name?: string;
  required?: boolean;
  autoComplete?: string;
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  placeholder?: string;
  hint?: ComponentChildren;
  error?: string | undefined;
  spellcheck?: boolean;
}

/** A labelled input with its hint and its error, both tied to it for assistive technology. */
export function Field(props: FieldProps) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [props.hint ? hintId : '', props.error ? errorId : ''].filter(Boolean).join(' ');
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        // Preact types each input type apart; the type is one of the text-like ones above.
        type={(props.type ?? 'text') as 'text'}
        value={props.value}
        onInput={(event) => props.onInput((event.currentTarget as HTMLInputElement).value)}
        required={props.required}
        autoComplete={props.autoComplete}
        minLength={props.minLength}
        maxLength={props.maxLength}
        min={props.min}
        max={props.max}
        placeholder={props.placeholder}
        spellcheck={props.spellcheck}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
      />
      {props.hint && (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p class="field-error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  );
}

interface SelectProps {
  label: string;
  value: string;
  options: readonly { value: string; label: string }[];
  onChange: (value: string) => void;
  name?: string;
  hint?: ComponentChildren;
  error?: string | undefined;
  compact?: boolean;
}

/** A labelled select. `compact` puts the label beside it (header controls). */
export function SelectField(props: SelectProps) {
  const id = useId();
  return (
    <div class={props.compact ? 'field field-inline' : 'field'}>
      <label for={id}>{props.label}</label>
      <select
        id={id}
        name={props.name}
        value={props.value}
        onChange={(event) => props.onChange((event.currentTarget as HTMLSelectElement).value)}
        aria-invalid={props.error ? 'true' : undefined}
      >
        {props.options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      {props.hint && <p class="hint">{props.hint}</p>}
      {props.error && <p class="field-error">{props.error}</p>}
    </div>
  );
}

/** A labelled checkbox. */
export function CheckField(props: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  name?: string;
}) {
  const id = useId();
  return (
    <div class="field field-check">
      <input
        id={id}
        type="checkbox"
        name={props.name}
        checked={props.checked}
        onChange={(event) => props.onChange((event.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{props.label}</label>
    </div>
  );
}
