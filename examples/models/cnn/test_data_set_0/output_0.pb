
BlogitsJ(¢qS?XÅ?jÙ¿Xƒî:)u~?ûð¿ul¤>£Sp?ö¢¿„ý=