"""Validation of a component's configured properties, with NiFi's messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from flowcore.el import validate_expression
from flowcore.processor.descriptors import PropertyDescriptor
from flowcore.processor.validation import ValidationResult


def validate_properties(
    descriptors: Sequence[PropertyDescriptor],
    properties: Mapping[str, str],
    dynamic: Mapping[str, PropertyDescriptor],
) -> list[ValidationResult]:
    """Check required values, allowable values, validators and Expression Language."""
    results: list[ValidationResult] = []
    known = {d.name for d in descriptors}
    for name, given in properties.items():
        if name not in known and name not in dynamic:
            results.append(
                ValidationResult(
                    name,
                    False,
                    given,
                    f"'{name}' is not a supported property or has no Validator associated with it",
                )
            )
    for descriptor in [*descriptors, *dynamic.values()]:
        label = descriptor.label
        configured = properties.get(descriptor.name)
        value = configured if configured is not None else descriptor.default
        if value is None or (value == "" and descriptor.required):
            if descriptor.required:
                results.append(ValidationResult(label, False, None, f"{label} is required"))
            continue
        has_el = "${" in value
        if has_el and descriptor.supports_expression_language:
            error = validate_expression(value)
            if error is not None:
                results.append(ValidationResult(label, False, value, error))
                continue
            # Validators that check the expression itself still apply.
            for validator in descriptor.validators:
                if getattr(validator, "checks_expression_language", False):
                    result = validator(label, value)
                    if not result.valid:
                        results.append(result)
                        break
            continue
        allowed = descriptor.allowed
        if allowed and descriptor.canonical(value) not in allowed:
            results.append(
                ValidationResult(
                    label,
                    False,
                    value,
                    f"Given value not found in allowed set '{', '.join(allowed)}'",
                )
            )
            continue
        for validator in descriptor.validators:
            result = validator(label, value)
            if not result.valid:
                results.append(result)
                break
    return results
