from django.apps import AppConfig


class DeskConfig(AppConfig):
    name = "desk"
    verbose_name = "The GM's desk"

    def ready(self) -> None:
        from desk.admin.scope import keep_plumbing, scope_admin

        scope_admin()  # the admin's autodiscovery (an earlier app) has registered every model by now
        keep_plumbing()
