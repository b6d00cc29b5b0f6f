import { useState } from 'preact/hooks';
import { useApp } from '../lib/context';
import {
  generatePassword,
  passwordProblems,
  PASSWORD_VERSION_TEXT,
  type PasswordRule,
  type PasswordRules,
} from '../../src/shared-crypto/format';
import type { EncryptionChoice } from '../upload/encryption';
import { CopyButton } from './copy-button';

/** The server's rules for typed passwords (GET /info discloses them). */
export function passwordRules(info: ReturnType<typeof useApp>['info']): PasswordRules {
  return {
    minLength: info.encryption_min_password_length ?? 12,
    mixedCase: info.encryption_password_must_have_upper_and_lower_case ?? true,
    numbers: info.encryption_password_must_have_numbers ?? true,
    special: info.encryption_password_must_have_special_characters ?? true,
  };
}

export interface EncryptState {
  on: boolean;
  mode: 'typed' | 'generated';
  typed: string;
  /** Made when the user picks "generate"; shown in the form until the upload starts, then never again. */
  generated: ReturnType<typeof generatePassword> | null;
}

export const ENCRYPT_OFF: EncryptState = { on: false, mode: 'typed', typed: '', generated: null };

/** The choice to encrypt with, or null while a typed password breaks a rule. */
export function encryptionChoice(s: EncryptState, rules: PasswordRules): EncryptionChoice | null {
  if (s.mode === 'generated' && s.generated)
    return {
      password: s.generated.value,
      passwordVersion: s.generated.version,
      passwordEncoding: s.generated.encoding,
    };
  if (s.mode === 'typed' && passwordProblems(s.typed, rules).length === 0)
    return { password: s.typed, passwordVersion: PASSWORD_VERSION_TEXT, passwordEncoding: 'none' };
  return null;
}

/**
 * The upload form's "Encrypt" switch: a typed password, with each rule shown met or not as it is typed, or
 * one generated in the browser (FileSender's password version 2: 32 random octets in base64), shown once
 * with a copy button. The password lives only in this form's state: never in storage, never sent.
 */
export function EncryptSwitch({
  value,
  onChange,
  mandatory,
}: {
  value: EncryptState;
  onChange(s: EncryptState): void;
  mandatory: boolean;
}) {
  const { t, info } = useApp();
  const rules = passwordRules(info);
  const problems = new Set<PasswordRule>(passwordProblems(value.typed, rules));
  const [shown] = useState(() => Math.random().toString(36).slice(2, 8));
  const id = (s: string) => `encrypt-${s}-${shown}`;
  const ruleList: [PasswordRule, string][] = [
    ['min_length', t('ui_encrypt_rule_min_length', { count: rules.minLength })],
    ...(rules.mixedCase ? [['mixed_case', t('ui_encrypt_rule_mixed_case')] as [PasswordRule, string]] : []),
    ...(rules.numbers ? [['numbers', t('ui_encrypt_rule_numbers')] as [PasswordRule, string]] : []),
    ...(rules.special ? [['special', t('ui_encrypt_rule_special')] as [PasswordRule, string]] : []),
  ];
  const on = value.on || mandatory;
  return (
    // Off, the switch alone: no border around an empty box.
    <fieldset class={on ? 'encrypt' : 'encrypt off'}>
      <legend>
        <label>
          <input
            type="checkbox"
            id="upload-encrypt"
            checked={on}
            disabled={mandatory}
            onChange={(e) => onChange({ ...value, on: e.currentTarget.checked })}
          />{' '}
          {t('ui_encrypt')}
        </label>
      </legend>
      {on && (
        <>
          <p class="hint">{t('ui_encrypt_hint')}</p>
          {/* The two choices side by side, each kept whole: on a phone the second goes below, never half of it. */}
          <div class="encrypt-modes">
            <label>
              <input
                type="radio"
                name="encrypt-mode"
                value="typed"
                checked={value.mode === 'typed'}
                onChange={() => onChange({ ...value, mode: 'typed' })}
              />{' '}
              {t('ui_encrypt_typed')}
            </label>
            <label>
              <input
                type="radio"
                name="encrypt-mode"
                value="generated"
                checked={value.mode === 'generated'}
                onChange={() =>
                  onChange({ ...value, mode: 'generated', generated: value.generated ?? generatePassword() })
                }
              />{' '}
              {t('ui_encrypt_generated')}
            </label>
          </div>
          {value.mode === 'typed' ? (
            <div class="field">
              <label for={id('password')}>{t('ui_encrypt_password')}</label>
              <input
                id={id('password')}
                class="encrypt-password"
                type="password"
                autocomplete="new-password"
                aria-describedby={id('rules')}
                value={value.typed}
                onInput={(e) => onChange({ ...value, typed: e.currentTarget.value })}
              />
              <ul id={id('rules')} class="password-rules" aria-live="polite">
                {ruleList.map(([rule, text]) => (
                  <li key={rule} class={problems.has(rule) ? 'unmet' : 'met'} data-rule={rule}>
                    <span aria-hidden="true">{problems.has(rule) ? '✗ ' : '✓ '}</span>
                    {text}
                  </li>
                ))}
              </ul>
            </div>
          ) : (
            value.generated && (
              <div class="field generated-password">
                <p class="hint">{t('ui_encrypt_generated_once')}</p>
                <code class="encrypt-generated">{value.generated.value}</code>{' '}
                <CopyButton text={value.generated.value} />
              </div>
            )
          )}
        </>
      )}
    </fieldset>
  );
}
