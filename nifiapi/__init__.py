"""NiFi 2's Python processor API, for processors written for NiFi to run in flowcore.

The module paths and names are the ones a NiFi 2 Python processor imports
(``nifiapi.flowfiletransform``, ``nifiapi.properties``...). Nothing here needs a JVM:
the engine side (values, Expression Language, state) is handed in by flowcore's adapter
(``processors.python_extensions``) through the small protocols in ``nifiapi._engine``.
"""
