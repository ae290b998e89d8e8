"""Validation of a component's configured properties, with NiFi's messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from flowcore.el import validate_expression
from flowcore.processor.descriptors import PropertyDescriptor
from flowcore.processor.service import ControllerService
from flowcore.processor.validation import ValidationResult


def validate_properties(
    descriptors: Sequence[PropertyDescriptor],
    properties: Mapping[str, str],
    dynamic: Mapping[str, PropertyDescriptor],
    services: Mapping[str, ControllerService] | None = None,
) -> list[ValidationResult]:
    """Check required values, allowable values, validators and Expression Language.

    Every problem of every property is returned, not only the first. Given the enabled
    controller ``services``, a property that identifies a controller service must name
    one of them, of the interface the property asks for.
    """
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
        if descriptor.controller_service and services is not None:
            problem = _service_problem(descriptor, value, services)
            if problem is not None:
                results.append(ValidationResult(label, False, value, problem))
                continue
        for validator in descriptor.validators:
            result = validator(label, value)
            if not result.valid:
                results.append(result)
                break
    return results


def _service_problem(
    descriptor: PropertyDescriptor, identifier: str, services: Mapping[str, ControllerService]
) -> str | None:
    """Why ``identifier`` is not a usable service for the property, or None."""
    service = services.get(identifier)
    if service is None:
        return (
            f"Invalid Controller Service: {identifier} is not a valid Controller Service Identifier"
        )
    interface = descriptor.controller_service
    if isinstance(interface, type) and not isinstance(service, interface):
        return f"Invalid Controller Service: {identifier} is not a {interface.__name__}"
    return None
