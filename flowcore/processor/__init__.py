"""The public processor API: everything a processor needs, and nothing of the engine."""

from flowcore.processor import validation as validators
from flowcore.processor.context import ProcessContext, PropertyValue
from flowcore.processor.descriptors import (
    AllowableValue,
    ExpressionLanguageScope,
    PropertyDescriptor,
    Relationship,
    Scheduling,
)
from flowcore.processor.processor import Processor, SessionFactory, SessionFactoryProcessor
from flowcore.processor.registry import controller_service, processor
from flowcore.processor.service import ControllerService
from flowcore.processor.validation import ValidationResult

__all__ = [
    "AllowableValue",
    "ControllerService",
    "ExpressionLanguageScope",
    "ProcessContext",
    "Processor",
    "PropertyDescriptor",
    "PropertyValue",
    "Relationship",
    "Scheduling",
    "SessionFactory",
    "SessionFactoryProcessor",
    "ValidationResult",
    "controller_service",
    "processor",
    "validators",
]
